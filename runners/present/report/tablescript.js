
const key = (row, i) => { const c = row.cells[i], v = c.dataset.v; return v === undefined ? c.textContent : v === "" ? -Infinity : +v; };
document.querySelectorAll("table.sortable th button").forEach(btn => btn.addEventListener("click", () => {
  const th = btn.parentElement, table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
  const up = th.getAttribute("aria-sort") !== "ascending";
  table.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
  th.setAttribute("aria-sort", up ? "ascending" : "descending");
  [...body.rows].sort((a, b) => { const x = key(a, i), y = key(b, i); return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); })
    .forEach(r => body.appendChild(r));
}));
const selects = [...document.querySelectorAll("select[data-col]")];
selects.forEach(s => s.addEventListener("change", () => {
  document.querySelectorAll("table.sortable tbody tr").forEach(r => {
    r.hidden = selects.some(s => s.value !== "" && r.cells[s.dataset.col].textContent !== s.value);
  });
}));
