// Fills every empty `timezone` field with the browser's IANA zone (the server falls back to UTC
// when this does not run: forms work without JavaScript).
for (const input of document.querySelectorAll('input[name="timezone"]')) {
  if (!input.value) {
    try {
      input.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch {
      // an old browser: the server's default applies
    }
  }
}
