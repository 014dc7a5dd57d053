// A scroll frame is a tab stop only while it overflows (axe scrollable-region-focusable, WCAG
// 2.1.1: a keyboard must reach what scrolls; a frame that does not scroll is a useless stop).
// The server renders tabindex="0" on every frame, so without JavaScript each stays reachable;
// here a frame that fits loses it, and gets it back when a narrower window makes it overflow.
const frames = document.querySelectorAll("[data-scroll-frame]");
function update() {
  for (const el of frames) {
    const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
    if (scrolls) el.setAttribute("tabindex", "0");
    else el.removeAttribute("tabindex");
  }
}
update();
addEventListener("resize", update);
