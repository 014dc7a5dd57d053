// Today's habit list (components/HabitList.tsx), enhanced. Without this script every cell is a
// form that posts and comes back to its row; with it:
// - a tap saves with fetch and no page load, the cell changing at once (optimistic) and changing
//   back, with the reason in the status line, when the save fails;
// - the cells are one tab stop, the arrow keys (and Home/End) moving between them: a roving
//   tabindex (WAI-ARIA Authoring Practices, "Keyboard Navigation Inside Components").
// The posts are the same forms the server renders (same fields, CSRF token, same-origin), so the
// server cannot tell them apart except by Sec-Fetch-Mode, which makes it answer 204.

const list = document.querySelector("[data-habits]");
if (list) enhance(list);

function enhance(list) {
  const status = list.querySelector(".habit-status");
  const rows = () =>
    [...list.querySelectorAll(".habit-row")].map((row) => [
      ...row.querySelectorAll(".habit-cell > button, .habit-cell > summary"),
    ]);
  const all = () => rows().flat();

  // One tab stop: today's cell of the first row until the member moves.
  const cells = all();
  for (const cell of cells) cell.tabIndex = -1;
  const start = rows()[0];
  if (start?.length) start[start.length - 1].tabIndex = 0;

  function moveTo(cell) {
    if (!cell) return;
    for (const c of all()) c.tabIndex = c === cell ? 0 : -1;
    cell.focus();
  }

  list.addEventListener("focusin", (e) => {
    if (all().includes(e.target)) { for (const c of all()) c.tabIndex = c === e.target ? 0 : -1; }
  });

  list.addEventListener("keydown", (e) => {
    const grid = rows();
    const r = grid.findIndex((row) => row.includes(e.target));
    if (r < 0) {
      // Escape in an open number cell closes it and returns to its cell.
      const open = e.target.closest?.("details[open]");
      if (e.key === "Escape" && open) {
        open.open = false;
        open.querySelector("summary").focus();
      }
      return;
    }
    const c = grid[r].indexOf(e.target);
    const next = {
      ArrowLeft: () => grid[r][c - 1],
      ArrowRight: () => grid[r][c + 1],
      ArrowUp: () => grid[r - 1]?.[Math.min(c, grid[r - 1].length - 1)],
      ArrowDown: () => grid[r + 1]?.[Math.min(c, grid[r + 1].length - 1)],
      Home: () => grid[r][0],
      End: () => grid[r][grid[r].length - 1],
    }[e.key];
    if (!next) return;
    e.preventDefault();
    moveTo(next());
  });

  // Opening one number cell closes the others: one small form at a time.
  list.addEventListener("toggle", (e) => {
    if (!e.target.open) return;
    for (const d of list.querySelectorAll("details[open]")) if (d !== e.target) d.open = false;
    e.target.querySelector("input[name=value]")?.focus();
  }, true);

  list.addEventListener("submit", (e) => {
    const form = e.target;
    if (!form.matches(".habit-cell, .habit-edit")) return;
    e.preventDefault();
    save(form, e.submitter);
  });

  async function save(form, submitter) {
    const body = new URLSearchParams(new FormData(form, submitter));
    const undo = optimistic(form, submitter);
    status.textContent = "";
    let res;
    try {
      res = await fetch(form.action, { method: "POST", body, credentials: "same-origin" });
    } catch {
      res = null;
    }
    if (res?.ok) return settle(form, body);
    undo();
    const why = await reason(res);
    status.textContent = why;
    showBeside(form, why);
  }

  // In an open number cell the reason also goes beside its field (the status line is under it).
  function showBeside(form, why) {
    const input = form.querySelector("input[name=value]");
    if (!input) return;
    let said = form.querySelector(".field-error");
    if (!said) {
      said = document.createElement("span");
      said.className = "field-error";
      said.id = `${input.id}-error`;
      input.closest(".unit-input").after(said);
      const ids = (input.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
      input.setAttribute("aria-describedby", [said.id, ...ids].join(" "));
    }
    said.textContent = why;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }

  // A yes/no cell changes at once; its button then offers the opposite.
  function optimistic(form, submitter) {
    const button = form.querySelector("button[aria-pressed]");
    if (!button || submitter !== button) return () => {};
    const before = {
      pressed: button.getAttribute("aria-pressed"),
      value: button.value,
      cls: button.className,
      glyph: button.firstElementChild.textContent,
      described: button.getAttribute("aria-describedby"),
    };
    const done = submitter.value === "yes";
    button.setAttribute("aria-pressed", String(done));
    button.value = done ? "no" : "yes";
    button.className = `cell state-${done ? "qualifies" : "below_goal"}`;
    button.firstElementChild.textContent = done ? "✓" : "✕";
    if (done) button.removeAttribute("aria-describedby");
    else button.setAttribute("aria-describedby", "habit-w-no");
    return () => {
      button.setAttribute("aria-pressed", before.pressed);
      button.value = before.value;
      button.className = before.cls;
      button.firstElementChild.textContent = before.glyph;
      if (before.described) button.setAttribute("aria-describedby", before.described);
      else button.removeAttribute("aria-describedby");
    };
  }

  // A number cell shows what was saved once the server took it, then closes.
  function settle(form, body) {
    const details = form.closest("details");
    if (!details) return;
    const summary = details.querySelector("summary");
    const shown = summary.querySelector("span");
    const skipped = body.get("set") === "skip";
    const cleared = body.get("set") === "clear";
    const value = skipped || cleared ? "" : (body.get("quick") ?? body.get("value") ?? "").trim();
    shown.textContent = skipped ? "–" : value;
    const state = skipped ? "skip" : value === "" ? "missing" : meets(summary.dataset.goal, value);
    summary.className = `cell state-${state}`;
    const own = shown.id;
    summary.setAttribute(
      "aria-describedby",
      skipped ? "habit-w-skip" : value === "" ? "habit-w-none" : own,
    );
    const input = form.querySelector("input[name=value]");
    if (input && !skipped) input.value = value;
    // "+1" adds to what is now stored, not to what the page was served with.
    const plus = form.querySelector("button[data-plus]");
    if (plus) plus.value = String((skipped || value === "" ? 0 : Number(value)) + 1);
    details.open = false;
    summary.focus();
    status.textContent = `${summary.getAttribute("aria-label")}: saved.`;
  }

  // The daily goal of a number cell ("at_least:7"), as lib/analytics/common.ts dayState reads it.
  function meets(goal, text) {
    if (!goal) return "qualifies";
    const [op, target] = goal.split(":");
    const [h, m] = text.split(":");
    const v = m === undefined ? Number(text.replace(",", ".")) : Number(h) * 60 + Number(m);
    const t = Number(target);
    const ok = op === "at_least"
      ? v >= t
      : op === "at_most"
      ? v <= t
      : op === "equals"
      ? v === t
      : op === "true"
      ? v === 1
      : true;
    return ok ? "qualifies" : "below_goal";
  }

  // Why a save failed, in the page's words: the message the server put beside the field.
  async function reason(res) {
    if (!res) return "Not saved: no connection. Try again.";
    try {
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const said = doc.querySelector(".field-error") ?? doc.querySelector("main p");
      const text = said?.textContent?.trim();
      if (text) return `Not saved: ${text}`;
    } catch {
      // fall through to the status
    }
    return `Not saved (${res.status}). Try again.`;
  }
}
