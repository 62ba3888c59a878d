// Shareable links (docs/web.md): the page opens with the pair and the text of its address
// (`?source=en&target=fr&q=Hello`, LibreTranslate's page's parameters) and translates it; as the
// pair or the text change, the address follows (history.replaceState: nothing is sent anywhere,
// the browser's address bar and history entry only), so copying the address shares the translation.
"use strict";

// {source, target, q} of the page's address ("" for those it does not hold).
function linkRead() {
  const found = new URLSearchParams(window.location.search);
  return { source: found.get("source") || "", target: found.get("target") || "", q: found.get("q") || "" };
}

// A code of the address as one of `codes` (any case: `EN`, `en`), or "" when none matches.
function linkCode(code, codes) {
  return codes.find((c) => c.toLowerCase() === code.toLowerCase()) || "";
}

// The address of the page's pair and text, in place of the current one.
function linkKeep(source, target, text) {
  const params = new URLSearchParams({ source, target });
  if (text.trim()) params.set("q", text);  // (blank: no text to share)
  const address = `${window.location.pathname}?${params}`;
  if (address !== window.location.pathname + window.location.search) window.history.replaceState(null, "", address);
}
