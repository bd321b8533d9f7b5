// The report's few interactions: sortable tables, the session filter, opening and closing every timeline, and
// copying the suggested YAML. Everything runs on the page itself; nothing is fetched.
(function () {
  "use strict";

  function cellValue(row, column) {
    var cell = row.cells[column];
    if (!cell) {
      return "";
    }
    var raw = cell.getAttribute("data-v");
    var text = raw !== null ? raw : cell.textContent.trim();
    return /^-?[0-9]+(\.[0-9]+)?$/.test(text) ? parseFloat(text) : text.toLowerCase();
  }

  function sortBy(table, header) {
    var body = table.tBodies[0];
    if (!body) {
      return;
    }
    var column = header.cellIndex;
    var ascending = !header.classList.contains("sorted-asc");
    Array.prototype.forEach.call(table.querySelectorAll("th"), function (th) {
      th.classList.remove("sorted-asc", "sorted-desc");
    });
    header.classList.add(ascending ? "sorted-asc" : "sorted-desc");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, column);
      var y = cellValue(b, column);
      var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === "number" ? -1 : 1;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) {
      body.appendChild(row);
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var head = table.tHead;
    if (!head) {
      return;
    }
    var last = head.rows[head.rows.length - 1];
    Array.prototype.forEach.call(last.cells, function (th) {
      if (th.colSpan === 1) {
        th.addEventListener("click", function () {
          sortBy(table, th);
        });
      }
    });
  });

  var sessions = Array.prototype.slice.call(document.querySelectorAll("details.session"));
  var shown = document.getElementById("shown");
  var filter = document.getElementById("session-filter");

  function count() {
    if (shown) {
      var visible = sessions.filter(function (s) {
        return !s.classList.contains("hidden");
      }).length;
      shown.textContent = visible + " / " + sessions.length;
    }
  }

  if (filter) {
    filter.addEventListener("input", function () {
      var wanted = filter.value.toLowerCase();
      sessions.forEach(function (s) {
        var path = (s.getAttribute("data-path") || "").toLowerCase();
        s.classList.toggle("hidden", wanted !== "" && path.indexOf(wanted) < 0);
      });
      count();
    });
  }

  function openAll(open) {
    sessions.forEach(function (s) {
      if (!s.classList.contains("hidden")) {
        s.open = open;
      }
    });
  }

  var openButton = document.getElementById("open-all");
  var closeButton = document.getElementById("close-all");
  if (openButton) {
    openButton.addEventListener("click", function () {
      openAll(true);
    });
  }
  if (closeButton) {
    closeButton.addEventListener("click", function () {
      openAll(false);
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) {
        return;
      }
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      try {
        document.execCommand("copy");
      } catch (ignored) {
        // The text stays selected: the reader copies it by hand.
      }
    });
  });

  count();
  document.documentElement.setAttribute("data-ready", "1");
})();
