// The translation page: a client of the LibreTranslate-compatible API on the same port.
//   /frontend/settings  limits, key required, version, the models (their pairs, whether they have a
//                       formality), file formats
//   /languages          the pairs served
//   /translate_stream   the translation as it decodes (server-sent events over a POST)
//   /translate_file     files: upload (progress), then the report and a download link (files.js)
// A server that asks for keys gets one with each call (key.js).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { settings: {}, pairs: {}, names: {}, controller: null, timer: 0, linked: false };

async function getJSON(path) {
  const answer = await fetch(path);
  if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
  return answer.json();
}

function option(code) {
  const element = document.createElement("option");
  element.value = code;
  element.textContent = `${state.names[code] || code} (${code})`;
  return element;
}

function fillTargets(preferred) {
  const targets = state.pairs[$("source").value] || [];
  $("target").replaceChildren(...targets.map(option));
  if (targets.includes(preferred)) $("target").value = preferred;
  pairChanged();
}

// The model that translates the chosen pair (the default model when it does), shown at the bottom;
// a pair no model translates goes through English (the server's routing): both models, the second's formality.
function modelFor(source, target) {
  const models = state.settings.models || [];
  const pick = (from, to) => {
    const serves = (m) => m.languages.some((p) => p.source === from && p.target === to);
    return models.find((m) => m.default && serves(m)) || models.find(serves) || null;
  };
  const direct = pick(source, target);
  if (direct || source === "en" || target === "en") return direct;
  const first = pick(source, "en"), second = pick("en", target);
  return first && second ? { name: `${first.name} + ${second.name}, through English`, registers: second.registers } : null;
}

function pairChanged() {
  const source = $("source").value, target = $("target").value, found = modelFor(source, target);
  const model = found ? found.name : state.settings.model;
  $("about").textContent = `traductor ${state.settings.version || ""}` + (model ? ` · model ${model}` : "");
  // formality only where the pair's model delivers a register, and only the registers it delivers
  // (more/less refused elsewhere: a model may deliver one of them)
  const registers = (found && found.registers) || [];
  $("formality-field").hidden = registers.length === 0;
  for (const [value, register] of [["more", "formal"], ["less", "informal"]]) {
    const option = $("formality").querySelector(`option[value="${value}"]`);
    option.hidden = option.disabled = !registers.includes(register);
  }
  if ($("formality").selectedOptions[0]?.disabled) $("formality").value = "default";
  $("input").placeholder = `Type or paste ${state.names[source] || "the"} text`;
  if (state.linked) linkKeep(source, target, $("input").value);
  updateSwap();
}

function updateSwap() {
  const back = state.pairs[$("target").value] || [];
  const possible = back.includes($("source").value);
  $("swap").disabled = !possible;
  $("swap").title = possible ? "Swap languages (Alt+S)" : `No model translates ${$("target").value} to ${$("source").value}`;
}

function swap() {
  if ($("swap").disabled) return;
  const source = $("source").value, target = $("target").value;
  $("source").value = target;
  fillTargets(source);
  if ($("output").textContent) $("input").value = $("output").textContent;
  $("output").textContent = "";
  inputChanged();
}

// The formality asked (DeepL's values), "" for the model's default or where the selector is hidden.
function formalityValue() {
  const value = $("formality").value;
  return $("formality-field").hidden || value === "default" ? "" : value;
}

// -- text ------------------------------------------------------------------------------------------
function countChars() {
  const limit = state.settings.charLimit || 0, used = [...$("input").value].length;
  const over = limit > 0 && used > limit;
  $("count").textContent = limit > 0 ? `${used} / ${limit}` : `${used}`;
  $("count").classList.toggle("over", over);
  $("translate").disabled = over;
  return !over;
}

function inputChanged() {
  const fits = countChars();
  if (state.linked) linkKeep($("source").value, $("target").value, $("input").value);
  clearTimeout(state.timer);
  if (fits) state.timer = setTimeout(translate, state.settings.frontendTimeout || 500);
}

function setStatus(text, error) {
  $("status").textContent = text;
  $("status").classList.toggle("error", Boolean(error));
}

async function translate() {
  clearTimeout(state.timer);
  if (state.controller) state.controller.abort();
  const text = $("input").value;
  if (!text.trim()) { $("output").textContent = ""; setStatus(""); return; }
  if (!countChars()) return;
  let glossary;
  try { glossary = glossaryEntries(); } catch (error) { setStatus(error.message, true); return; }
  const controller = new AbortController();
  state.controller = controller;
  const body = {
    q: text, source: $("source").value, target: $("target").value,
    format: document.querySelector("input[name=format]:checked").value, glossary,
  };
  if (keyValue()) body.api_key = keyValue();
  if (formalityValue()) body.formality = formalityValue();
  $("output").textContent = "";
  $("quality").replaceChildren();
  setStatus("translating…");
  try {
    const answer = await fetch("/translate_stream", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!answer.ok) {
      const problem = await answer.json().catch(() => ({ error: answer.statusText }));
      setStatus(refusalText(answer.status, problem.error || answer.statusText, answer.headers.get("Retry-After")), true);
      return;
    }
    await readEvents(answer.body, (event, data) => {
      if (event === "done") { $("output").textContent = data.translatedText; setStatus(""); showQuality(data); }
      else if (event === "error") setStatus(data.error, true);
      else $("output").textContent += data.delta;
    });
  } catch (error) {
    if (error.name !== "AbortError") setStatus(String(error.message || error), true);
  } finally {
    if (state.controller === controller) state.controller = null;
  }
}

// Server-sent events from a fetch body: "event: NAME\ndata: JSON\n\n" blocks.
async function readEvents(stream, onEvent) {
  const reader = stream.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) onEvent(event, JSON.parse(data));
    }
    if (done) return;
  }
}

async function copy() {
  const text = $("output").textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  setStatus("copied");
}

// What the server says about a translation (docs/confidence.md): its confidence, and the segments
// cut short (the length limit, a loop stopped) or of low confidence, each with its source.
const CUT = { length: "cut short at the length limit", loop: "cut short: it kept repeating itself" };

function showQuality(data) {
  const line = document.createElement("p");
  const doubtful = (data.segments || []).filter((s) => s.cutShort || s.lowConfidence);
  const percent = Math.round((data.confidence ?? 1) * 100);
  line.textContent = `Confidence ${percent}%` + (doubtful.length ? ` · ${doubtful.length} to review:` : "");
  line.className = data.cutShort || data.lowConfidence ? "doubt" : "";
  const list = document.createElement("ul");
  for (const s of doubtful) {
    const row = document.createElement("li");
    const doubt = s.markupUnsure ? "markup not placed with confidence" : "low confidence";
    const why = CUT[s.finish] || `${doubt} (${Math.round(s.confidence * 100)}%)`;
    row.textContent = `${why}: “${s.source}” → “${s.translatedText}”`;
    list.append(row);
  }
  $("quality").replaceChildren(line, ...(doubtful.length ? [list] : []));
}

// -- tabs ------------------------------------------------------------------------------------------
function selectTab(tab) {
  for (const other of document.querySelectorAll("[role=tab]")) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !selected;
  }
  tab.focus();
}

function tabKeys(event) {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  const at = tabs.indexOf(event.target);
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    const step = event.key === "ArrowRight" ? 1 : tabs.length - 1;
    selectTab(tabs[(at + step) % tabs.length]);
    event.preventDefault();
  }
}

// -- start -----------------------------------------------------------------------------------------
async function start() {
  try {
    const [settings, languages] = await Promise.all([getJSON("/frontend/settings"), getJSON("/languages")]);
    state.settings = settings;
    for (const language of languages) {
      state.names[language.code] = language.name;
      if (language.targets.length) state.pairs[language.code] = language.targets;
    }
  } catch (error) {
    setStatus(`The server's settings could not be read (${error.message}).`, true);
    return;
  }
  const settings = state.settings, preferred = settings.language || {}, link = linkRead();
  const sources = Object.keys(state.pairs);
  $("source").replaceChildren(...sources.map(option));
  const source = linkCode(link.source, sources) || (preferred.source && preferred.source.code);
  if (sources.includes(source)) $("source").value = source;
  const targets = state.pairs[$("source").value] || [];
  if (link.q) $("input").value = link.q;
  state.linked = true;  // from here on the address follows the pair and the text (link.js)
  fillTargets(linkCode(link.target, targets) || (preferred.target && preferred.target.code));
  keyStart(Boolean(settings.keyRequired), inputChanged);  // key.js: the field, kept in this browser
  const formats = settings.supportedFilesFormat || [];
  $("formats").textContent = formats.join(" ");
  $("file").accept = formats.join(",");
  document.body.dataset.ready = "true";
  countChars();
  if ($("input").value.trim()) translate();
}

function wire() {
  $("source").addEventListener("change", () => { fillTargets($("target").value); inputChanged(); });
  $("target").addEventListener("change", () => { pairChanged(); inputChanged(); });
  $("formality").addEventListener("change", translate);
  $("swap").addEventListener("click", swap);
  $("input").addEventListener("input", inputChanged);
  $("input").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); translate(); } });
  document.addEventListener("keydown", (e) => { if (e.altKey && e.key.toLowerCase() === "s") { e.preventDefault(); swap(); } });
  for (const radio of document.querySelectorAll("input[name=format]")) radio.addEventListener("change", translate);
  $("translate").addEventListener("click", translate);
  $("copy").addEventListener("click", copy);
  glossaryWire(inputChanged);
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", tabKeys);
  }
  $("file-form").addEventListener("submit", uploadFile);
}

wire();
start();
