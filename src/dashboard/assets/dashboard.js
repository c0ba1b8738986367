// Progressive enhancement only: every page works without this file.

// Forms with data-confirm ask before submitting (deleting a session, cancelling a registration).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});

// Arrow keys move between tabs, as the ARIA tabs pattern expects; Enter follows the link.
document.addEventListener("keydown", (event) => {
  const tab = event.target;
  if (!(tab instanceof HTMLElement) || tab.getAttribute("role") !== "tab") return;
  if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
  const tabs = Array.from(tab.closest("[role=tablist]")?.querySelectorAll("[role=tab]") ?? []);
  const index = tabs.indexOf(tab);
  const next = tabs[(index + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
  if (next instanceof HTMLElement) {
    event.preventDefault();
    next.focus();
  }
});

// Copy buttons: <button data-copy="#element-id">; the text stays selectable without script.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!(button instanceof HTMLElement)) return;
  const source = document.querySelector(button.dataset.copy ?? "");
  if (!source) return;
  const field = source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement;
  const text = field ? source.value : (source.textContent ?? "");
  try {
    await navigator.clipboard.writeText(text);
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  } catch {
    if (field) source.select();
  }
});

// A dialog rendered open moves focus into itself, so keyboard users land on its action.
const dialog = document.querySelector("[role=dialog]");
if (dialog instanceof HTMLElement) {
  const target = dialog.querySelector("[autofocus], button, a[href], input");
  if (target instanceof HTMLElement) target.focus();
}

// A page that shows a secret once (a new API token) is the answer to a POST. Its history entry is
// replaced by the plain page behind the dialog, so reloading or going back never posts the form
// again (which would mint another token) and never shows this token again.
const replaceWith = document.querySelector("[data-replace-url]");
if (replaceWith instanceof HTMLElement && replaceWith.dataset.replaceUrl) {
  history.replaceState(null, "", replaceWith.dataset.replaceUrl);
}

// <input data-filter="NAME">: hides the NAME checkboxes whose label lacks a typed word (any order,
// "hopper grace" finds Grace Hopper); checked ones always stay visible.
document.addEventListener("input", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.dataset.filter) return;
  const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const box of document.querySelectorAll(`input[type=checkbox][name="${input.dataset.filter}"]`)) {
    const option = box.closest(".checkbox");
    if (!(option instanceof HTMLElement) || !(box instanceof HTMLInputElement)) continue;
    const text = (option.textContent ?? "").toLowerCase();
    option.hidden = !box.checked && !words.every((word) => text.includes(word));
  }
});
// On a phone, tables are shown as cards (dashboard.css): each cell names its column.
for (const table of document.querySelectorAll(".table-wrap table")) {
  const headers = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent?.trim() ?? "");
  for (const row of table.querySelectorAll("tbody tr")) {
    Array.from(row.children).forEach((cell, index) => {
      if (cell instanceof HTMLElement && headers[index]) cell.dataset.label = headers[index];
    });
  }
}

// A new project's time zone starts as the browser's (the server cannot know it; without script it is UTC).
const zoneSelect = document.querySelector("form[data-enhance=browser-zone] select[name=timezone]");
if (zoneSelect instanceof HTMLSelectElement) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (Array.from(zoneSelect.options).some((option) => option.value === zone)) zoneSelect.value = zone;
}

// The Overview's "Checked in" figure follows the door counts as check-ins commit; without script,
// or if the stream is refused, it shows what the page was rendered with.
for (const figure of document.querySelectorAll("[data-live-counts]")) {
  if (!(figure instanceof HTMLElement) || !window.EventSource || !figure.dataset.liveCounts) continue;
  const live = new EventSource(figure.dataset.liveCounts);
  live.addEventListener("counts", (event) => {
    const { checkedIn, expected } = JSON.parse(event.data);
    const set = (name, text) => {
      const part = figure.querySelector(`[data-live-${name}]`);
      if (part) part.textContent = text;
    };
    set("checked-in", String(checkedIn));
    set("registered", String(expected));
    set("percent", expected === 0 ? "—" : `${Math.round((checkedIn / expected) * 100)}%`);
  });
}
