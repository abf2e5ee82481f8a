"use strict";
(function () {
  var root = document.documentElement;
  root.setAttribute("data-js", "on");
  var styled = getComputedStyle(root).getPropertyValue("--bdx-styled").trim();
  root.setAttribute("data-styled", styled === "1" ? "yes" : "no");
  var violations = 0;
  document.addEventListener("securitypolicyviolation", function (e) {
    violations += 1;
    root.setAttribute("data-csp-violations", String(violations));
    root.setAttribute("data-csp-blocked", String(e.blockedURI));
  });
  var bar = document.getElementById("filters");
  if (!bar) { return; }
  var pick = { sev: document.getElementById("f-sev"), rule: document.getElementById("f-rule"), file: document.getElementById("f-file") };
  var total = Number(bar.getAttribute("data-total"));
  function has(list, v) { return list === null || v === "" || list.split(" ").indexOf(v) >= 0; }
  function matches(el) {
    return has(el.getAttribute("data-sev"), pick.sev.value) &&
      has(el.getAttribute("data-rule"), pick.rule.value) &&
      has(el.getAttribute("data-file"), pick.file.value);
  }
  function apply() {
    var shown = 0;
    document.querySelectorAll("[data-filter]").forEach(function (el) { el.hidden = !matches(el); });
    document.querySelectorAll("tr.g[data-filter]").forEach(function (el) {
      if (!el.hidden && !el.closest("[hidden]")) { shown += Number(el.getAttribute("data-count")); }
    });
    document.querySelectorAll("section.file").forEach(function (sec) {
      var rows = sec.querySelectorAll("tr.g[data-filter]");
      if (!sec.hidden && rows.length > 0 && Array.prototype.every.call(rows, function (r) { return r.hidden; })) { sec.hidden = true; }
    });
    var out = document.getElementById("shown");
    out.textContent = "Showing " + shown.toLocaleString("en-US") + " of " + total.toLocaleString("en-US") + " findings";
    out.setAttribute("data-shown", String(shown));
  }
  var wanted = new URLSearchParams(location.hash.replace(/^#/, ""));
  Object.keys(pick).forEach(function (k) {
    var v = wanted.get(k);
    if (v !== null && Array.prototype.some.call(pick[k].options, function (o) { return o.value === v; })) { pick[k].value = v; }
    pick[k].addEventListener("change", apply);
  });
  bar.hidden = false;
  apply();
})();
