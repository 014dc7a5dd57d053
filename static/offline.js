/*
 * Offline use of the signed-in pages (issue #24): registers the service worker (/sw.js), gives
 * each submit of a form marked `data-offline` a fresh idempotency key — so the worker can send it
 * again, or later, and the server still applies it once — and says on the page what is waiting to
 * be sent. Without this script (JavaScript off) the forms post as they always did.
 *
 * A script of another page part (e.g. a habit cell saved with fetch) joins the queue by posting a
 * form-encoded body with the same three fields: `idempotency_key` (a UUID), `offline_label` (what
 * the change is, in the member's words) and `offline_member` (`data-member` of the page); offline,
 * the worker answers it `202 {"queued": true}`.
 */

(() => {
  if (!("serviceWorker" in navigator) || !globalThis.isSecureContext) return;
  const member = document.querySelector("[data-member]")?.getAttribute("data-member") ?? "";
  let last = { waiting: [], refused: [], signInNeeded: false };

  navigator.serviceWorker.register("/sw.js").catch(() => {});

  /** Posts a message to the active worker, controlling this page or not yet. */
  async function tell(message) {
    const registration = await navigator.serviceWorker.ready;
    registration.active?.postMessage(message);
  }

  function hidden(form, name, value) {
    let input = form.querySelector(`input[type=hidden][name="${name}"]`);
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.append(input);
    }
    input.value = value;
  }

  /** The member's words for one control: its column's legend, else its label. */
  function nameOf(el) {
    const legend = el.closest("fieldset")?.querySelector("legend")?.textContent;
    return (legend ?? el.labels?.[0]?.textContent ?? el.name).trim();
  }

  function changed(el) {
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if ("defaultValue" in el && el.type !== "hidden") return el.value !== el.defaultValue;
    return false;
  }

  /** What a submit changes, e.g. "Sunday 22 November: Workout, Water". */
  function labelOf(form, submitter) {
    const names = new Set();
    for (const el of form.elements) if (el.name && changed(el)) names.add(nameOf(el));
    if (submitter?.name === "skip") names.add(`${nameOf(submitter)} skipped`);
    if (submitter?.name === "clear") names.add(`${nameOf(submitter)} cleared`);
    const what = [...names].join(", ") || "no change";
    const day = form.getAttribute("data-offline-label");
    return day ? `${day}: ${what}` : what;
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-offline")) return;
    if (!navigator.serviceWorker.controller) return; // no worker yet: a plain post
    hidden(form, "idempotency_key", crypto.randomUUID());
    hidden(form, "offline_label", labelOf(form, event.submitter));
    hidden(form, "offline_member", member);
  });

  /** The status line: created once, empty while there is nothing to say (a live region). */
  function statusBox() {
    let box = document.getElementById("offline-status");
    if (!box) {
      box = document.createElement("div");
      box.id = "offline-status";
      box.className = "notice info offline-status";
      box.setAttribute("role", "status");
      const main = document.getElementById("main");
      if (!main) return null;
      main.prepend(box);
    }
    return box;
  }

  function line(text, tag = "p") {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  }

  /** The device's date, YYYY-MM-DD (the member's zone is usually the device's). */
  function deviceToday() {
    const d = new Date();
    const two = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  }

  /** Offline, Today may be a copy from an earlier day: say which day a save will go to. */
  function staleToday() {
    if (new URL(location.href).searchParams.has("day")) return null;
    // The day form, not a habit-list cell (each names its own day).
    const form = document.querySelector("form[data-day-form]");
    const day = form?.querySelector("input[name=day]")?.value;
    if (!day || day === deviceToday()) return null;
    const title = form.getAttribute("data-offline-label") ?? day;
    return line(`This copy of Today is from ${title}: what you save here is logged on that day.`);
  }

  function render() {
    const box = statusBox();
    if (!box) return;
    const mine = last.waiting.filter((item) => item.member === member);
    const parts = [];
    if (!navigator.onLine) {
      parts.push(line("You are offline. What you save is kept on this device and sent later."));
      const stale = staleToday();
      if (stale) parts.push(stale);
    }
    if (mine.length > 0) {
      const n = mine.length;
      parts.push(line(`${n} ${n === 1 ? "change" : "changes"} waiting to be sent:`));
      const list = document.createElement("ul");
      for (const item of mine) list.append(line(item.label, "li"));
      parts.push(list);
      if (last.signInNeeded) parts.push(line("Sign in again to send them."));
    }
    for (const label of last.refused) {
      parts.push(line(`Not saved — the server refused it: ${label}. Log it again.`));
    }
    box.replaceChildren(...parts);
  }

  const shown = new Set();
  /** Controls the member changed on this page: the waiting values never overwrite them. */
  const touched = new WeakSet();
  document.addEventListener("input", (event) => touched.add(event.target));
  /**
   * The page may be this device's copy from before the changes waiting for its form: show them
   * in the form, as they will be (oldest first), so a second save offline sends them again
   * instead of undoing them (a form sends every field, an unticked box included).
   */
  function showWaiting(items) {
    for (const form of document.querySelectorAll("form[data-offline]")) {
      const action = new URL(form.getAttribute("action") ?? "", location.href).href;
      for (const item of items) {
        if (item.member !== member || item.url !== action || shown.has(item.key)) continue;
        shown.add(item.key);
        const sent = new URLSearchParams(item.body);
        for (const el of form.elements) {
          if (!el.name || el.type === "hidden" || el.type === "submit" || touched.has(el)) continue;
          if (el.type === "checkbox" || el.type === "radio") {
            el.checked = el.defaultChecked = sent.getAll(el.name).includes(el.value);
          } else if (sent.has(el.name) && "defaultValue" in el) {
            el.value = el.defaultValue = sent.get(el.name);
          }
        }
      }
    }
  }

  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data?.type !== "queue") return;
    last = event.data;
    showWaiting(last.waiting);
    render();
    if (last.refused.length > 0) tell({ type: "refused-seen" });
  });

  function sync() {
    render();
    tell(navigator.onLine ? { type: "flush", member } : { type: "status" });
  }
  addEventListener("online", sync);
  addEventListener("offline", sync);
  navigator.serviceWorker.addEventListener("controllerchange", sync);
  sync();
})();
