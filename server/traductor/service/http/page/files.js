// The Files tab (docs/files.md): a file is uploaded to /translate_file with the pair, the glossary,
// the formality and the key (progress shown), then the report and a download link. Uses page.js's
// `$` and formalityValue, glossary.js's glossaryEntries and key.js's keyValue and refusalText.
"use strict";

function fileStatus(text, error) {
  $("file-status").textContent = text;
  $("file-status").classList.toggle("error", Boolean(error));
}

function showReport(report) {
  const parts = [`${report.filled} filled`, `${report.alreadyTranslated} already translated`];
  const review = report.needsReview || [];
  if (review.length) parts.push(`${review.length} written for review (cut short or low confidence)`);
  if (report.reviewKept) parts.push(`${report.reviewKept} waiting for review, kept`);
  if (report.notTranslatable) parts.push(`${report.notTranslatable} not translatable`);
  const left = [...report.rejected, ...report.skipped];
  parts.push(`${left.length} left untranslated`);
  const summary = document.createElement("p");
  summary.textContent = parts.join(" · ");
  const list = document.createElement("ul");
  for (const item of [...review, ...left]) {
    const row = document.createElement("li");
    row.textContent = `${item.unit}: ${item.reason}`;
    list.append(row);
  }
  $("report").replaceChildren(summary, ...(left.length || review.length ? [list] : []));
}

function uploadFile(event) {
  event.preventDefault();
  const file = $("file").files[0];
  if (!file) { fileStatus("Choose a file first.", true); return; }
  let glossary;
  try { glossary = glossaryEntries(); } catch (error) { fileStatus(error.message, true); return; }
  const form = new FormData();
  if (glossary.length) form.append("glossary", glossary.map((entry) => entry.join("\t")).join("\n"));
  form.append("file", file);
  form.append("source", $("source").value);
  form.append("target", $("target").value);
  if (keyValue()) form.append("api_key", keyValue());
  if (formalityValue()) form.append("formality", formalityValue());
  const request = new XMLHttpRequest();
  const progress = $("progress");
  progress.hidden = false;
  progress.value = 0;
  $("download").hidden = true;
  $("report").replaceChildren();
  $("upload").disabled = true;
  fileStatus(`Uploading ${file.name}…`);
  request.upload.onprogress = (e) => { if (e.lengthComputable) progress.value = (100 * e.loaded) / e.total; };
  request.upload.onload = () => { progress.removeAttribute("value"); fileStatus(`Translating ${file.name}…`); };
  request.onerror = () => { progress.hidden = true; $("upload").disabled = false; fileStatus("The server could not be reached.", true); };
  request.onload = async () => {
    $("upload").disabled = false;
    progress.hidden = true;
    let answer = {};
    try { answer = JSON.parse(request.responseText); } catch { answer = { error: request.statusText }; }
    if (request.status !== 200) {
      fileStatus(refusalText(request.status, answer.error, request.getResponseHeader("Retry-After")), true);
      return;
    }
    const download = await fetch(answer.translatedFileUrl);
    if (!download.ok) { fileStatus("The translated file could not be downloaded.", true); return; }
    const link = $("download");
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(await download.blob());
    link.download = file.name;
    link.textContent = `Download ${file.name}`;
    link.hidden = false;
    fileStatus(`${file.name} is translated.`);
    showReport(answer.report);
  };
  request.open("POST", "/translate_file");
  request.send(form);
}
