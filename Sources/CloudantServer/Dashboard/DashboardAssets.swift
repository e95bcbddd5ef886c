/// The dashboard's style sheet and script, served from `/_utils/assets/`. Hand-written and small: no
/// framework, no CDN, no build step. Every page reads and posts without the script; it only adds JSON
/// checking as you type, confirmations and the live changes feed.
enum DashboardAssets {
    static let css = """
        :root { color-scheme: light dark; --fg: #1d232a; --muted: #5b6570; --line: #d6dbe0; --accent: #0b63ce;
          --bg: #fff; --soft: #f3f5f7; --danger: #b42318; --ok: #067647; }
        @media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #a0a8b0; --line: #3a4149;
          --accent: #6aa7ff; --bg: #15191d; --soft: #1f252b; --danger: #ff7b72; --ok: #56d364; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        a { color: var(--accent); }
        .top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; text-decoration: none; margin-right: auto; }
        .who { color: var(--muted); }
        .crumbs { padding: .5rem 1.2rem; color: var(--muted); }
        main { padding: 0 1.2rem 2rem; max-width: 80rem; }
        h1 { font-size: 1.5rem; margin: .4rem 0 1rem; word-break: break-all; }
        h2 { font-size: 1.15rem; margin-top: 1.6rem; }
        .mono, code, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
        .grid { border-collapse: collapse; width: 100%; margin: .5rem 0; }
        .grid th, .grid td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top;
          word-break: break-word; }
        .grid th { background: var(--soft); font-weight: 600; }
        .num { text-align: right !important; font-variant-numeric: tabular-nums; }
        .scroll { overflow-x: auto; }
        .row { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: 1rem 0; }
        .stack { display: grid; gap: .5rem; margin: 1rem 0; }
        .narrow { max-width: 22rem; }
        .inline { display: inline; }
        label { display: grid; gap: .2rem; }
        label[for] { display: block; }
        .stack button { justify-self: start; }
        input, textarea, button, select { font: inherit; color: inherit; }
        input, textarea, select { padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); }
        textarea { width: 100%; }
        textarea.invalid { border-color: var(--danger); }
        button { padding: .35rem .9rem; border: 1px solid var(--accent); background: var(--accent); color: #fff;
          border-radius: 4px; cursor: pointer; }
        button.danger { background: var(--danger); border-color: var(--danger); }
        .notice { padding: .5rem .8rem; background: var(--soft); border-left: 4px solid var(--ok); }
        .failure { padding: .5rem .8rem; background: var(--soft); border-left: 4px solid var(--danger); white-space: pre-wrap; }
        .json-status { min-height: 1.2em; margin: 0; color: var(--danger); }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
        .facts dt { color: var(--muted); }
        .facts dd { margin: 0; }
        .tabs { display: flex; gap: 1rem; margin-bottom: 1rem; }
        .danger-zone { margin-top: 2rem; }
        .danger-zone summary { color: var(--danger); cursor: pointer; }
        .tree { list-style: none; padding-left: 0; }
        .tree li { padding: .1rem 0; }
        .tree .winner { font-weight: 600; }
        .tree .deleted { color: var(--muted); text-decoration: line-through; }
        .tree .conflict { color: var(--danger); }
        .pager { display: flex; gap: 1rem; }
        .chart { width: 100%; height: auto; max-width: 60rem; background: var(--soft); border-radius: 4px; }
        .calendar { display: grid; grid-template-columns: repeat(7, 1fr); gap: 4px; }
        .calendar .day { border: 1px solid var(--line); border-radius: 4px; padding: .3rem; min-height: 4.5rem; font-size: 13px; }
        .calendar .day.full { border-color: var(--ok); }
        .calendar .day.partial { border-color: #d29922; }
        .calendar .day.none { border-color: var(--danger); }
        .calendar ul { margin: .2rem 0 0; padding-left: 1rem; }
        .calendar .weekday { color: var(--muted); font-weight: 600; }
        tr.fresh td { background: var(--soft); }

        """

    static let javascript = """
        "use strict";
        // Progressive enhancement only: every page works without this script.
        (function () {
          // JSON text areas say whether their text parses, as you type, and refuse to post text that does not.
          for (const area of document.querySelectorAll("textarea[data-json]")) {
            const status = area.form ? area.form.querySelector(".json-status") : null;
            const check = function () {
              try { JSON.parse(area.value); area.classList.remove("invalid"); if (status) status.textContent = ""; return true; }
              catch (error) { area.classList.add("invalid"); if (status) status.textContent = "Not valid JSON: " + error.message; return false; }
            };
            area.addEventListener("input", check);
            if (area.form) area.form.addEventListener("submit", function (event) { if (!check()) event.preventDefault(); });
          }
          // Deleting a document asks first (deleting a database already asks for its name).
          const deleteDocument = document.getElementById("delete-document");
          if (deleteDocument) deleteDocument.addEventListener("submit", function (event) {
            if (!window.confirm("Delete this document?")) event.preventDefault();
          });
          // The changes page follows the feed: a longpoll `_changes` request at a time, new rows on top.
          const table = document.getElementById("changes");
          if (table && window.fetch) {
            const database = table.dataset.database;
            let since = table.dataset.since;
            const body = table.querySelector("tbody");
            const cell = function (row, text, className) {
              const td = row.insertCell(-1); td.textContent = text; if (className) td.className = className; return td;
            };
            const follow = function () {
              const url = "/" + encodeURIComponent(database) + "/_changes?feed=longpoll&timeout=25000&since=" + encodeURIComponent(since);
              fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
                .then(function (response) { if (!response.ok) throw new Error("HTTP " + response.status); return response.json(); })
                .then(function (feed) {
                  for (const change of feed.results) {
                    const row = body.insertRow(0);
                    row.className = "fresh";
                    cell(row, String(change.seq), "mono");
                    const link = document.createElement("a");
                    link.href = "/_utils/db/" + encodeURIComponent(database) + "/doc/" + encodeURIComponent(change.id);
                    link.textContent = change.id;
                    row.insertCell(-1).appendChild(link);
                    cell(row, change.changes.length ? change.changes[0].rev : "", "mono");
                    cell(row, change.deleted ? "deleted" : "");
                  }
                  since = feed.last_seq;
                  window.setTimeout(follow, 0);
                })
                .catch(function () { window.setTimeout(follow, 5000); });
            };
            follow();
          }
        })();

        """
}
