// Settings page enhancements (components/SettingsPage.tsx). Everything works without this file:
// the token sits in a selectable field, Revoke falls back to a confirm page, the zone is typed.

// Copy: reveal the button and copy the token field's text.
for (const button of document.querySelectorAll("button[data-copy]")) {
  const input = document.getElementById(button.dataset.copy);
  const status = document.querySelector("[data-copy-status]");
  if (!input) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
      document.execCommand("copy");
    }
    if (status) status.textContent = "Copied. Paste it where your program keeps secrets.";
  });
}

// Revoke: ask here, so the server can skip its confirm page.
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    const confirmed = form.querySelector('input[name="confirmed"]');
    if (!confirmed || confirmed.value === "yes") return;
    if (globalThis.confirm(form.dataset.confirm)) confirmed.value = "yes";
    else event.preventDefault();
  });
}

// Time zone: offer this device's zone when it differs from the saved one.
const hint = document.querySelector("[data-device-zone]");
const zoneInput = document.querySelector('input[name="timezone"]');
let zone = "";
try {
  zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
} catch {
  // an old browser: nothing to offer
}
if (hint && zoneInput && zone && zone !== zoneInput.value) {
  const use = hint.querySelector("[data-use-zone]");
  use.textContent = zone;
  use.setAttribute("aria-label", `Use ${zone}`);
  use.addEventListener("click", () => {
    zoneInput.value = zone;
    zoneInput.focus();
  });
  hint.hidden = false;
}
