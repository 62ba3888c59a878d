// The API key (docs/web.md, docs/keys.md). On a server that asks for keys (/frontend/settings says
// keyRequired: --token, --api-keys or --keys-redis) the page shows a key field, keeps what is typed
// in this browser (localStorage, as LibreTranslate's page does) and sends it as `api_key` with every
// translating call (the text's stream, a file). /frontend/settings and /languages are open, so the
// page reads them without a key. A refusal shows the server's own message: 403 for a missing, wrong
// or revoked key or a pair the key may not use, 429 over the key's limits (with the wait the server
// gives in Retry-After), 503 while the key store does not answer. On an open server the field stays
// hidden and nothing is sent.
"use strict";

const KEY_STORAGE = "traductor-api-key";
const KEY_REFUSED = "Invalid API key";  // the start of the server's refusal of a missing or bad key

// Show the field where keys are asked, fill it from the browser's storage; `onChange` runs as the
// key is typed (the page translates again with it).
function keyStart(required, onChange) {
  const field = document.getElementById("api-key");
  document.getElementById("key-field").hidden = !required;
  field.value = required ? localStorage.getItem(KEY_STORAGE) || "" : "";
  field.addEventListener("input", () => {
    const value = field.value.trim();
    if (value) localStorage.setItem(KEY_STORAGE, value);
    else localStorage.removeItem(KEY_STORAGE);
    field.removeAttribute("aria-invalid");
    onChange();
  });
}

// The key to send: "" on a server that asks for none, or when none is typed.
function keyValue() {
  if (document.getElementById("key-field").hidden) return "";
  return document.getElementById("api-key").value.trim();
}

// The line shown for a refused call: the server's message, and for a 429 how long to wait (its
// Retry-After, in seconds). A refused key marks the field, so the person sees where to look.
function refusalText(status, error, retryAfter) {
  const text = error || `error ${status}`;
  if (status === 403 && text.startsWith(KEY_REFUSED)) {
    document.getElementById("api-key").setAttribute("aria-invalid", "true");
  }
  if (status !== 429 || !retryAfter) return text;
  const seconds = Number(retryAfter);
  return `${text} · retry after ${Number.isFinite(seconds) ? `${seconds} s` : retryAfter}`;
}
