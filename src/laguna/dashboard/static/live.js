// laguna's dashboard: an environment's page follows the environment's events
// (the API's server-sent events, relayed by the dashboard under its cookie).
// Reports are appended to the Progress list as they come, a reporting
// component is marked busy, and when the status changes or a deployment
// ends, the parts of the page it changes ([data-live]: status, deploy
// controls, components, outputs, topology, actions, history) are read again.
// No library: EventSource, fetch and DOMParser are the browser's.
(function () {
  "use strict";
  var root = document.querySelector("[data-events]");
  if (!root || !window.EventSource) { return; }
  var progress = document.getElementById("live-reports");
  var source = new EventSource(root.getAttribute("data-events"));

  function line(text, level, time) {
    var item = document.createElement("li");
    item.className = level || "info";
    if (time) {
      var stamp = document.createElement("time");
      stamp.textContent = time;
      item.appendChild(stamp);
      item.appendChild(document.createTextNode(" "));
    }
    item.appendChild(document.createTextNode(text));
    progress.appendChild(item);
  }

  // The page is read again rather than patched from the events: the API's
  // status (an open session is "pending") is the page's, and a deployment's
  // end reaches the store a moment before its session is marked deployed, so
  // while the page says deploying or deleting it is read again each second.
  var again = null;
  function refresh() {
    if (again !== null) { window.clearTimeout(again); again = null; }
    fetch(window.location.href, {credentials: "same-origin"})
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (part) {
          // a part the user is filling in is left as it is
          if (part.contains(document.activeElement) && document.activeElement !== document.body) {
            return;
          }
          var replacement = fresh.getElementById(part.id);
          if (replacement) { part.replaceWith(document.importNode(replacement, true)); }
        });
        var now = document.getElementById("status");
        if (now && (now.textContent === "deploying" || now.textContent === "deleting")) {
          again = window.setTimeout(refresh, 1000);
        }
      });
  }

  source.addEventListener("deployment", function (event) {
    var d = JSON.parse(event.data);
    if (d.finished) {
      line(d.operation + " ended: " + d.state, d.state === "success" ? "info" : "error",
           d.finished);
      // the end of the deployment the page was drawn after changes nothing
      if (d.deployment_id !== root.getAttribute("data-ended")) { refresh(); }
    } else {
      line(d.operation + " started", "info", d.started);
    }
  });
  source.addEventListener("report", function (event) {
    var r = JSON.parse(event.data);
    line(r.text, r.level, r.time);
    if (r.entity_id && r.deployment_id !== root.getAttribute("data-ended")) {
      var row = document.querySelector('[data-component="' + CSS.escape(r.entity_id) + '"] .state');
      if (row) { row.textContent = "working"; }
    }
  });
  // the stream's first status is the store's at its start: the page, drawn
  // a moment before, is read again only if it shows another
  var seen = false;
  source.addEventListener("status", function (event) {
    var s = JSON.parse(event.data).status;
    var shown = document.getElementById("status");
    if (s === null) {
      shown.textContent = "deleted";
      source.close();
      return;
    }
    var first = !seen;
    seen = true;
    if (first && shown.textContent === s) { return; }
    refresh();
  });
})();
