// Filters the reference as you type: a type stays visible when its name, or one of its fields'
// names, contains the search text; matching fields are highlighted.
const input = document.getElementById("reference-search");
const sections = [...document.querySelectorAll("section.type")];
const indexItems = [...document.querySelectorAll(".type-index li")];

function filter() {
  const text = input.value.trim().toLowerCase();
  for (const section of sections) {
    const fields = [...section.querySelectorAll(".field")];
    let fieldMatch = false;
    for (const field of fields) {
      const id = field.id.toLowerCase();
      const match = text !== "" && id.slice(id.indexOf(".") + 1).includes(text);
      field.classList.toggle("match", match);
      fieldMatch ||= match;
    }
    const visible = text === "" || section.dataset.search.includes(text) || fieldMatch;
    section.hidden = !visible;
  }
  for (const item of indexItems) {
    const section = document.getElementById(item.querySelector("a").getAttribute("href").slice(1));
    item.hidden = Boolean(section?.hidden);
  }
}

if (input) {
  input.addEventListener("input", filter);
  if (location.search.startsWith("?q=")) {
    input.value = decodeURIComponent(location.search.slice(3));
    filter();
  }
}
