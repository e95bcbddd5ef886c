/// The dashboard's Mustache templates, by name. Kept in the module's source rather than as resource files
/// so that the `cloudant` binary carries them wherever it is copied.
///
/// Every page extends `layout` (`{{<layout}}{{$content}}…{{/content}}{{/layout}}`). Values are escaped by
/// `{{…}}`; only `{{{svg}}}`, markup the server drew itself, is inserted raw.
enum DashboardTemplates {
    static let all: [(String, String)] = [
        ("layout", layout), ("login", login), ("message", message), ("databases", databases), ("database", database),
        ("document", document), ("query", query), ("views", views), ("changes", changes), ("panel", panel), ("node", node),
    ]

    static let layout = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · OTFCloudantStore</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/_utils/assets/dashboard.css">
        <script src="/_utils/assets/dashboard.js" defer></script>
        </head>
        <body>
        <header class="top">
        <a class="brand" href="/_utils/">OTFCloudantStore</a>
        {{#user}}<span class="who">{{name}}</span>
        {{#canLogOut}}<form method="post" action="/_utils/logout" class="inline"><input type="hidden" name="_csrf" value="{{csrf}}"><button type="submit">Log out</button></form>{{/canLogOut}}{{/user}}
        </header>
        <nav class="crumbs" aria-label="Breadcrumb"><a href="/_utils/">Databases</a>{{#crumbs}} / <a href="{{href}}">{{label}}</a>{{/crumbs}}</nav>
        <main>
        <h1>{{heading}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#failure}}<p class="failure" role="alert">{{failure}}</p>{{/failure}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>

        """

    static let login = """
        {{<layout}}{{$content}}
        <form method="post" action="/_utils/login" class="stack narrow" id="login">
        <input type="hidden" name="next" value="{{next}}">
        <label>Name <input name="name" autocomplete="username" required value="{{name}}"></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
        <button type="submit">Log in</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let message = """
        {{<layout}}{{$content}}
        <p><a href="/_utils/">Back to the databases</a></p>
        {{/content}}{{/layout}}
        """

    static let databases = """
        {{<layout}}{{$content}}
        <table class="grid" id="databases">
        <thead><tr><th>Name</th><th class="num">Documents</th><th class="num">Deleted</th><th class="num">Size on disk</th><th class="num">Data size</th></tr></thead>
        <tbody>
        {{#databases}}<tr><td><a href="{{href}}">{{name}}</a></td><td class="num">{{docCount}}</td><td class="num">{{deletedCount}}</td><td class="num">{{fileSize}}</td><td class="num">{{dataSize}}</td></tr>
        {{/databases}}{{^databases}}<tr><td colspan="5">No databases yet.</td></tr>{{/databases}}
        </tbody>
        </table>
        <form method="get" action="/_utils/open" class="row" id="open-database">
        <label>Open a database <input name="name" required></label>
        <button type="submit">Open</button>
        </form>
        <form method="post" action="/_utils/databases" class="row" id="create-database">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label>New database <input name="name" required placeholder="patients" value="{{newName}}"></label>
        <button type="submit">Create</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let database = """
        {{<layout}}{{$content}}
        <nav class="tabs"><a href="{{base}}/new">New document</a> <a href="{{base}}/query">Query</a> <a href="{{base}}/views">Views</a> <a href="{{base}}/changes">Changes</a>{{#panels}} <a href="{{href}}">{{title}}</a>{{/panels}}</nav>
        <dl class="facts"><dt>Documents</dt><dd id="doc-count">{{docCount}}</dd><dt>Deleted</dt><dd>{{deletedCount}}</dd><dt>Size on disk</dt><dd>{{fileSize}}</dd><dt>Data size</dt><dd>{{dataSize}}</dd><dt>Update sequence</dt><dd class="mono">{{updateSeq}}</dd></dl>
        <table class="grid" id="documents">
        <thead><tr><th>Id</th><th>Revision</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="{{href}}">{{id}}</a></td><td class="mono">{{rev}}</td></tr>
        {{/rows}}{{^rows}}<tr><td colspan="2">No documents{{#start}} from here{{/start}}.</td></tr>{{/rows}}
        </tbody>
        </table>
        <p class="pager">{{#first}}<a href="{{first}}">First page</a>{{/first}} {{#next}}<a href="{{next}}" rel="next">Next {{limit}}</a>{{/next}}</p>
        <details class="danger-zone"><summary>Delete this database</summary>
        <form method="post" action="{{base}}/delete" class="row" id="delete-database">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label>Type its name to confirm <input name="confirm" required autocomplete="off"></label>
        <button type="submit" class="danger">Delete database</button>
        </form>
        </details>
        {{/content}}{{/layout}}
        """

    static let document = """
        {{<layout}}{{$content}}
        {{#deleted}}<p class="notice">This revision is deleted (a tombstone).</p>{{/deleted}}
        {{#hasConflicts}}<section class="conflicts"><h2>Conflicts</h2><p>Other leaf revisions that lost to the one shown; open one to keep it or delete it.</p>
        <ul>{{#conflicts}}<li><a class="mono" href="{{href}}">{{rev}}</a></li>{{/conflicts}}</ul></section>{{/hasConflicts}}
        <form method="post" action="{{saveHref}}" class="stack" id="edit-document">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="json">{{#isNew}}New document (JSON; leave out _id for a generated one){{/isNew}}{{^isNew}}Revision <span class="mono">{{rev}}</span>{{/isNew}}</label>
        <textarea id="json" name="json" rows="{{rows}}" spellcheck="false" data-json>{{json}}</textarea>
        <p class="json-status" aria-live="polite"></p>
        <button type="submit">Save</button>
        </form>
        {{^isNew}}
        <section><h2>Revision tree</h2>
        <ul class="tree" id="revision-tree">{{#tree}}{{>node}}{{/tree}}</ul>
        </section>
        <section><h2>Attachments</h2>
        <table class="grid" id="attachments"><thead><tr><th>Name</th><th>Type</th><th class="num">Length</th></tr></thead><tbody>
        {{#attachments}}<tr><td><a href="{{href}}" download="{{name}}">{{name}}</a></td><td>{{contentType}}</td><td class="num">{{length}}</td></tr>
        {{/attachments}}{{^attachments}}<tr><td colspan="3">None.</td></tr>{{/attachments}}
        </tbody></table>
        <form method="post" action="{{attachHref}}" enctype="multipart/form-data" class="row" id="upload-attachment">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="rev" value="{{rev}}">
        <label>Add an attachment <input type="file" name="file" required></label>
        <button type="submit">Upload</button>
        </form>
        </section>
        <details class="danger-zone"><summary>Delete this document</summary>
        <form method="post" action="{{deleteHref}}" class="row" id="delete-document">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="rev" value="{{rev}}">
        <button type="submit" class="danger">Delete revision {{rev}}</button>
        </form>
        </details>
        {{/isNew}}
        {{/content}}{{/layout}}
        """

    static let query = """
        {{<layout}}{{$content}}
        <form method="get" action="{{base}}/query" class="stack" id="query-form">
        <label for="q">Mango query (the body of <code>_find</code>)</label>
        <textarea id="q" name="q" rows="8" spellcheck="false" data-json>{{q}}</textarea>
        <p class="json-status" aria-live="polite"></p>
        <button type="submit">Run</button>
        </form>
        {{#ran}}
        <section id="explain"><h2>Plan</h2>
        {{#index}}<p>Index <strong class="mono">{{name}}</strong> ({{type}}{{#hasDdoc}}, {{ddoc}}{{/hasDdoc}}) on <span class="mono">{{fields}}</span>.</p>{{/index}}
        {{#hasCandidates}}<table class="grid" id="candidates"><thead><tr><th>Index not chosen</th><th>Why</th></tr></thead><tbody>
        {{#candidates}}<tr><td class="mono">{{name}}</td><td>{{reason}}</td></tr>{{/candidates}}
        </tbody></table>{{/hasCandidates}}
        </section>
        <section><h2>Results</h2>
        <p id="result-count">{{count}} document{{^one}}s{{/one}}{{#nextPage}} · <a href="{{nextPage}}" rel="next">next page</a>{{/nextPage}}</p>
        {{#warning}}<p class="notice">{{warning}}</p>{{/warning}}
        <div class="scroll"><table class="grid" id="results"><thead><tr>{{#columns}}<th>{{.}}</th>{{/columns}}</tr></thead><tbody>
        {{#results}}<tr>{{#cells}}<td>{{#link}}<a href="{{href}}">{{text}}</a>{{/link}}{{^link}}{{text}}{{/link}}</td>{{/cells}}</tr>
        {{/results}}
        </tbody></table></div>
        </section>
        {{/ran}}
        <section><h2>Indexes</h2>
        <table class="grid" id="indexes"><thead><tr><th>Name</th><th>Design document</th><th>Type</th><th>Fields</th><th></th></tr></thead><tbody>
        {{#indexes}}<tr><td class="mono">{{name}}</td><td class="mono">{{ddoc}}</td><td>{{type}}</td><td class="mono">{{fields}}</td><td>{{#deletable}}<form method="post" action="{{base}}/indexes/delete" class="inline"><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="ddoc" value="{{ddoc}}"><input type="hidden" name="name" value="{{name}}"><input type="hidden" name="type" value="{{type}}"><button type="submit" class="danger">Delete</button></form>{{/deletable}}</td></tr>
        {{/indexes}}
        </tbody></table>
        <form method="post" action="{{base}}/indexes" class="stack" id="create-index">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="index">New index (the body of <code>POST _index</code>)</label>
        <textarea id="index" name="index" rows="4" spellcheck="false" data-json>{{newIndex}}</textarea>
        <p class="json-status" aria-live="polite"></p>
        <button type="submit">Create index</button>
        </form>
        </section>
        {{/content}}{{/layout}}
        """

    static let views = """
        {{<layout}}{{$content}}
        <table class="grid" id="designs"><thead><tr><th>Design document</th><th>Language</th><th>Views</th></tr></thead><tbody>
        {{#designs}}<tr><td><a href="{{href}}">{{id}}</a></td><td>{{language}}</td><td>{{#views}}<a class="mono" href="{{href}}">{{name}}</a>{{#reduce}} <span class="muted">({{reduce}})</span>{{/reduce}} {{/views}}{{^hasViews}}none{{/hasViews}}</td></tr>
        {{/designs}}{{^designs}}<tr><td colspan="3">No design documents.</td></tr>{{/designs}}
        </tbody></table>
        <form method="get" action="{{base}}/views" class="stack" id="view-form">
        <label for="view">View</label>
        <select id="view" name="view">{{#choices}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/choices}}</select>
        {{#parameters}}<label>{{label}} <input name="{{name}}" value="{{value}}" class="mono" autocomplete="off"></label>
        {{/parameters}}
        <button type="submit">Run view</button>
        </form>
        {{#ran}}
        <section><h2>Rows</h2>
        <p id="view-count">{{count}} row{{^one}}s{{/one}}{{#total}} of {{total}}{{/total}}</p>
        <div class="scroll"><table class="grid" id="view-rows"><thead><tr>{{#hasIDs}}<th>Id</th>{{/hasIDs}}<th>Key</th><th>Value</th>{{#hasDocs}}<th>Document</th>{{/hasDocs}}</tr></thead><tbody>
        {{#rows}}<tr>{{#hasIDs}}<td><a href="{{href}}">{{id}}</a></td>{{/hasIDs}}<td class="mono">{{key}}</td><td class="mono">{{value}}</td>{{#hasDocs}}<td class="mono">{{doc}}</td>{{/hasDocs}}</tr>
        {{/rows}}
        </tbody></table></div>
        </section>
        {{/ran}}
        {{/content}}{{/layout}}
        """

    static let changes = """
        {{<layout}}{{$content}}
        <p>The latest changes, newest first.{{#live}} New ones appear as they happen.{{/live}}</p>
        <table class="grid" id="changes" data-database="{{database}}" data-since="{{lastSeq}}">
        <thead><tr><th>Sequence</th><th>Id</th><th>Revision</th><th></th></tr></thead>
        <tbody>
        {{#changes}}<tr><td class="mono">{{seq}}</td><td><a href="{{href}}">{{id}}</a></td><td class="mono">{{rev}}</td><td>{{#deleted}}deleted{{/deleted}}</td></tr>
        {{/changes}}
        </tbody>
        </table>
        {{/content}}{{/layout}}
        """

    /// One revision of the tree and, recursively, its children.
    static let node = """
        <li class="{{state}}">{{#link}}<a class="mono" href="{{href}}">{{rev}}</a>{{/link}}{{^link}}<span class="mono">{{rev}}</span>{{/link}} {{label}}{{#hasChildren}}<ul>{{#children}}{{>node}}{{/children}}</ul>{{/hasChildren}}</li>
        """

    static let panel = """
        {{<layout}}{{$content}}
        {{{html}}}
        {{/content}}{{/layout}}
        """
}
