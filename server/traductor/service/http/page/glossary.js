// The page's glossary box (docs/glossary.md): one entry a line, "source = target" (a tab or a
// comma between them also works); blank lines are skipped. Both tabs send the entries with their
// request as `glossary`; the box is kept in this browser (localStorage) like the API key.
"use strict";

function glossaryEntries() {
  const entries = [];
  document.getElementById("glossary").value.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const parts = line.includes("\t") ? line.split("\t") : line.includes("=") ? line.split("=") : line.split(",");
    if (parts.length !== 2 || !parts[0].trim() || !parts[1].trim()) {
      throw new Error(`Glossary line ${i + 1}: write "source = target"`);
    }
    entries.push([parts[0].trim(), parts[1].trim()]);
  });
  return entries;
}

function glossaryWire(onChange) {
  const box = document.getElementById("glossary");
  box.value = localStorage.getItem("traductor-glossary") || "";
  box.addEventListener("input", () => { localStorage.setItem("traductor-glossary", box.value); onChange(); });
}
