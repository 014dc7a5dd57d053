// Sign-up's "Time zone" field (issue #25): while it still holds the server's default (marked
// `data-fill-zone`), put this device's IANA zone in it. Without JavaScript the field stays visible
// with UTC in it, for the member to change; a zone the member typed is never replaced.
for (const input of document.querySelectorAll("input[data-fill-zone]")) {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) input.value = zone;
  } catch {
    // an old browser: the visible default stays
  }
  input.removeAttribute("data-fill-zone");
}
