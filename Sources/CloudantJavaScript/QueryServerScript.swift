/// The query server: the JavaScript each engine context runs once, which gives design functions CouchDB's
/// environment (`emit`, `log`, `sum`, `toJSON`, `isArray`, `require`, `provides`, `registerType`, `start`,
/// `send`, `getRow`) and answers the query-server commands the way CouchDB's `share/server` scripts do:
/// function sources compiled in sandboxes, documents sealed before map functions see them, a map function's
/// exception logged and its document skipped, reduce output that does not shrink refused, shows, lists,
/// updates, filters, validation and rewrites answered in the protocol's JSON.
///
/// Design functions never run in this context: each design document (and each view index) gets a context
/// of its own in the same group (`host.sandbox`), whose only globals are the helpers above and the
/// language's own built-ins, so a function can neither see nor change what runs other design documents, and
/// has no I/O at all. `host` is implemented in Swift (``JavaScriptContext``):
///
/// - `host.sandbox(globals)`: a new context whose global object gets `globals`' members; returns its number.
/// - `host.evaluate(sandbox, source, name)`: the completion value of `source` run in that context, an
///   anonymous `function (…) {…}` statement taken as an expression, as CouchDB's engines take it.
/// - `host.release(sandbox)`: forgets a sandbox.
/// - `host.log(message)`: a `log()` line.
/// - `host.listRow(chunks, start)`: hands a list function's output over and returns the next row's JSON
///   text, or null after the last row.
///
/// Every entry point takes and returns JSON text, and returns `{"ok": answer}` or `{"error": [kind, name,
/// reason]}`: what CouchDB's query server would print, and how its `handleError` reports a failure.
enum QueryServerScript {
    static let source = #"""
(function (host) {
  "use strict";

  // ---------------------------------------------------------------- helpers design functions see
  var emitted = [];            // rows the running map function emitted
  var viewFilterEmitted = false;

  function errorToJSON(value) {
    if (typeof value === "object" && value !== null && "stack" in value && "name" in value && "message" in value) {
      return { error: value.name, message: value.message };
    }
    return value;
  }

  function describe(error) {
    if (error === null || error === undefined) return String(error);
    if (typeof error.toSource === "function") return error.toSource();
    return error.toString();
  }

  function emit(key, value) { emitted.push([key, errorToJSON(value)]); }
  function filterEmit(key, value) { viewFilterEmitted = true; }

  function sum(values) {
    var total = 0;
    for (var index in values) total += values[index];
    return total;
  }

  function log(message) {
    if (typeof message !== "string") message = JSON.stringify(errorToJSON(message));
    host.log(String(message));
  }

  function isArray(value) { return Object.prototype.toString.call(value) === "[object Array]"; }
  function toJSON(value) { return JSON.stringify(value); }

  function sealJSON(value) {
    if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
    Object.freeze(value);
    if (Array.isArray(value)) {
      for (var i = 0; i < value.length; i++) sealJSON(value[i]);
    } else {
      for (var name in value) sealJSON(value[name]);
    }
    return value;
  }

  // ---------------------------------------------------------------- media types (provides, registerType)
  var mimesByKey = {};
  var keysByMime = {};
  function registerType(key) {
    var mimes = [];
    for (var i = 1; i < arguments.length; i++) mimes.push(arguments[i]);
    mimesByKey[key] = mimes;
    for (var j = 0; j < mimes.length; j++) keysByMime[mimes[j]] = key;
  }
  registerType("all", "*/*");
  registerType("text", "text/plain; charset=utf-8", "txt");
  registerType("html", "text/html; charset=utf-8");
  registerType("xhtml", "application/xhtml+xml", "xhtml");
  registerType("xml", "application/xml", "text/xml", "application/x-xml");
  registerType("js", "text/javascript", "application/javascript", "application/x-javascript");
  registerType("css", "text/css");
  registerType("ics", "text/calendar");
  registerType("csv", "text/csv");
  registerType("rss", "application/rss+xml");
  registerType("atom", "application/atom+xml");
  registerType("yaml", "application/x-yaml", "text/yaml");
  registerType("multipart_form", "multipart/form-data");
  registerType("url_encoded_form", "application/x-www-form-urlencoded");
  registerType("json", "application/json", "text/x-json");

  var providesUsed = false;
  var mimeFunctions = [];
  var responseContentType = null;
  function provides(type, fun) { providesUsed = true; mimeFunctions.push([type, fun]); }
  function resetProvides() { providesUsed = false; mimeFunctions = []; responseContentType = null; }

  // Accept-header matching: fitness 100 for the type, 10 for the subtype, 1 per matching parameter; the
  // quality of the best fitting range; candidates ordered as Array.prototype.sort orders them by default.
  function trim(text) { return text.replace(/^\s+/, "").replace(/\s+$/, ""); }
  function parseMediaType(text) {
    var parts = text.split(";"), params = {};
    for (var i = 0; i < parts.length; i++) {
      var pair = parts[i].split("=");
      if (pair.length == 2) params[trim(pair[0])] = trim(pair[1]);
    }
    var full = trim(parts[0]);
    if (full == "*") full = "*/*";
    var type = full.split("/");
    return [type[0], type[1], params];
  }
  function parseRange(text) {
    var parsed = parseMediaType(text);
    var q = parsed[2].q;
    if (!q) parsed[2].q = "1";
    else {
      var number = parseFloat(q);
      if (isNaN(number) || number > 1 || number < 0) parsed[2].q = "1";
    }
    return parsed;
  }
  function fitness(mime, ranges) {
    var best = -1, bestQ = 0, target = parseRange(mime);
    for (var i = 0; i < ranges.length; i++) {
      var range = ranges[i];
      var typeFits = range[0] == target[0] || range[0] == "*" || target[0] == "*";
      var subtypeFits = range[1] == target[1] || range[1] == "*" || target[1] == "*";
      if (!(typeFits && subtypeFits)) continue;
      var matching = 0;
      for (var param in target[2]) {
        if (param != "q" && range[2][param] && range[2][param] == target[2][param]) matching += 1;
      }
      var score = (range[0] == target[0] ? 100 : 0) + (range[1] == target[1] ? 10 : 0) + matching;
      if (score > best) { best = score; bestQ = range[2].q; }
    }
    return [best, parseFloat(bestQ)];
  }
  function bestMatch(supported, header) {
    var ranges = header.split(",").map(parseRange);
    var weighted = [];
    for (var i = 0; i < supported.length; i++) weighted.push([fitness(supported[i], ranges), i, supported[i]]);
    weighted.sort();
    var last = weighted[weighted.length - 1];
    return last[0][1] ? last[2] : "";
  }

  function runProvides(request, ddoc) {
    var bestKey = null, bestFun, accept = request.headers["Accept"];
    if (request.query && request.query.format) {
      bestKey = request.query.format;
      responseContentType = mimesByKey[bestKey][0];
    } else if (accept) {
      var supported = [];
      mimeFunctions.reverse().forEach(function (entry) {
        if (mimesByKey[entry[0]]) supported = supported.concat(mimesByKey[entry[0]]);
      });
      responseContentType = bestMatch(supported, accept);
      bestKey = keysByMime[responseContentType];
    } else {
      bestKey = mimeFunctions[0][0];
      responseContentType = mimesByKey[bestKey][0];
    }
    if (bestKey) {
      for (var i = 0; i < mimeFunctions.length; i++) {
        if (mimeFunctions[i][0] == bestKey) { bestFun = mimeFunctions[i][1]; break; }
      }
    }
    if (bestFun) return bestFun.call(ddoc);
    var types = mimeFunctions.map(function (entry) { return mimesByKey[entry[0]].join(", ") || entry[0]; });
    throw ["error", "not_acceptable", "Content-Type " + (accept || bestKey) + " not supported, try one of: " + types.join(", ")];
  }

  // ---------------------------------------------------------------- responses (start, send, getRow)
  var startedHead = false;
  var chunks = [];
  var head = {};
  var askedForRow = false;
  var rowsEnded = false;
  function start(response) { head = response || {}; startedHead = true; }
  function send(chunk) { chunks.push(chunk.toString()); }
  function resetResponse() { askedForRow = false; rowsEnded = false; chunks = []; head = {}; startedHead = false; }
  function withContentType(response, type) {
    response.headers = response.headers || {};
    if (type) response.headers["Content-Type"] = response.headers["Content-Type"] || type;
    return response;
  }
  function getRow() {
    if (rowsEnded) return null;
    var first = null;
    if (!askedForRow) {
      askedForRow = true;
      first = withContentType(head || {}, responseContentType);
      head = {};
    } else if (startedHead) {
      first = head;  // a start() after the first getRow() travels with the next chunks (CouchDB's blowChunks)
    }
    startedHead = false;
    var sent = chunks;
    chunks = [];
    var row = host.listRow(JSON.stringify(sent), first === null ? null : JSON.stringify(first));
    if (row === null) { rowsEnded = true; return null; }
    return JSON.parse(row);
  }
  function wrap(response) {
    var type = typeof response;
    return (type == "string") ? { body: response } : response;
  }
  function typeOf(value) {
    var type = typeof value;
    if (type === "object") {
      if (value) { if (value instanceof Array) type = "array"; } else type = "null";
    }
    return type;
  }
  function renderError(error, kind) {
    if ((error && error.error && error.reason) || (error && (error[0] == "error" || error[0] == "fatal"))) throw error;
    var message = "function raised error: " + describe(error) + " \nstacktrace: " + (error && error.stack);
    log(message);
    throw ["error", kind || "render_error", message];
  }

  function runShow(fun, ddoc, args) {
    try {
      resetResponse();
      resetProvides();
      var response = wrap(fun.apply(ddoc, args) || {});
      if (chunks.length > 0) {
        response.headers = response.headers || {};
        for (var name in head) response.headers[name] = head[name];
        response.body = chunks.join("") + (response.body || "");
        resetResponse();
      }
      if (providesUsed) {
        var provided = wrap(runProvides(args[1], ddoc) || {});
        response.body = (response.body || "") + chunks.join("");
        response.body += provided.body || "";
        response = withContentType(response, responseContentType);
        resetResponse();
      }
      var type = typeOf(response);
      if (type == "object" || type == "string") return ["resp", wrap(response)];
      throw ["error", "render_error", "undefined response from show function"];
    } catch (error) {
      if (args[0] === null && args[1] && args[1].path && args[1].path.length > 5) {
        throw ["error", "not_found", "document not found"];
      }
      renderError(error);
    }
  }

  function runUpdate(fun, ddoc, args) {
    try {
      if (args[1].method == "GET") throw ["error", "method_not_allowed", "Update functions do not allow GET"];
      var result = fun.apply(ddoc, args);
      var response = result[1];
      var type = typeOf(response);
      if (type == "object" || type == "string") return ["up", result[0], wrap(response)];
      throw ["error", "render_error", "undefined response from update function"];
    } catch (error) {
      renderError(error);
    }
  }

  function runList(fun, ddoc, args) {
    try {
      resetProvides();
      resetResponse();
      var tail = fun.apply(ddoc, args);
      if (providesUsed) tail = runProvides(args[1], ddoc);
      if (!askedForRow) getRow();
      if (typeof tail != "undefined") chunks.push(tail);
      var out = chunks;
      chunks = [];
      return startedHead ? ["end", out, head] : ["end", out];
    } catch (error) {
      renderError(error);
    }
  }

  function runRewrite(fun, ddoc, args) {
    var result;
    try {
      result = fun.apply(ddoc, args);
    } catch (error) {
      renderError(error, "rewrite_error");
    }
    if (!result) return ["no_dispatch_rule"];
    if (typeof result === "string") result = { path: result, method: args[0].method };
    return ["ok", result];
  }

  function runFilter(fun, ddoc, args) {
    var documents = args[0], request = args[1], passes = [];
    for (var i = 0; i < documents.length; i++) passes.push((fun.apply(ddoc, [documents[i], request]) && true) || false);
    return [true, passes];
  }

  function runViewFilter(fun, ddoc, args) {
    var documents = args[0], passes = [];
    for (var i = 0; i < documents.length; i++) {
      viewFilterEmitted = false;
      fun(documents[i]);
      passes.push((viewFilterEmitted && true) || false);
    }
    return [true, passes];
  }

  function runValidate(fun, ddoc, args) {
    try {
      fun.apply(ddoc, args);
      return 1;
    } catch (error) {
      if (error && error.name && error.stack) throw error;
      return error;
    }
  }

  // ---------------------------------------------------------------- compiling in sandboxes
  function helpers(emitFunction) {
    return {
      emit: emitFunction, sum: sum, log: log, toJSON: toJSON, isArray: isArray, provides: provides,
      registerType: registerType, start: start, send: send, getRow: getRow
    };
  }

  // A sandbox for the functions of one design document: CouchDB's helpers, and `require` reading the
  // design document's CommonJS modules.
  function makeSandbox(root, emitFunction) {
    var globals = helpers(emitFunction);
    var sandbox = { id: null, modules: {} };
    globals.require = function (name) { return requireModule(sandbox, root, name, undefined); };
    sandbox.id = host.sandbox(globals);
    return sandbox;
  }

  function compileIn(sandbox, source, name) {
    if (!source) throw ["error", "not_found", "missing function"];
    var value;
    try {
      value = host.evaluate(sandbox.id, String(source), name || "");
    } catch (error) {
      throw ["error", "compilation_error", describe(error) + " (" + source + ")"];
    }
    if (typeof value === "function") return value;
    throw ["error", "compilation_error", "Expression does not eval to a function. (" + String(source) + ")"];
  }

  function resolveModule(names, module, root) {
    if (names.length == 0) {
      if (typeof module.current != "string") {
        throw ["error", "invalid_require_path", "Must require a JavaScript string, not: " + (typeof module.current)];
      }
      return { current: module.current, parent: module.parent, id: module.id, exports: {} };
    }
    var name = names.shift();
    if (name == "..") {
      if (!(module.parent && module.parent.parent)) {
        throw ["error", "invalid_require_path", "Object has no parent " + JSON.stringify(module.current)];
      }
      return resolveModule(names, {
        id: module.id.slice(0, module.id.lastIndexOf("/")), parent: module.parent.parent, current: module.parent.current
      });
    }
    if (name == ".") {
      if (!module.parent) {
        throw ["error", "invalid_require_path", "Object has no parent " + JSON.stringify(module.current)];
      }
      return resolveModule(names, { parent: module.parent, current: module.current, id: module.id });
    }
    if (root) module = { current: root };
    if (module.current[name] === undefined) {
      throw ["error", "invalid_require_path", "Object has no property \"" + name + "\". " + JSON.stringify(module.current)];
    }
    return resolveModule(names, { current: module.current[name], parent: module, id: module.id ? module.id + "/" + name : name });
  }

  function requireModule(sandbox, root, name, parent) {
    var module = resolveModule(name.split("/"), parent ? parent.parent : undefined, root);
    if (!Object.prototype.hasOwnProperty.call(sandbox.modules, module.id)) {
      // An empty exports object first, so a circular require ends instead of filling the stack.
      sandbox.modules[module.id] = {};
      var wrapper = "(function (module, exports, require) { " + module.current + "\n });";
      try {
        var body = host.evaluate(sandbox.id, wrapper, module.id);
        body.apply(undefined, [module, module.exports, function (inner) { return requireModule(sandbox, root, inner, module); }]);
      } catch (error) {
        throw ["error", "compilation_error", "Module require('" + name + "') raised error " + describe(error)];
      }
      sandbox.modules[module.id] = module.exports;
    }
    return sandbox.modules[module.id];
  }

  // ---------------------------------------------------------------- failures
  function failure(error) {
    if (error === null) return ["fatal", "internal_error", null];
    if (error[0] == "fatal") return ["fatal", error[1], error[2]];
    if (error[0] == "error") return ["error", error[1], error[2]];
    if (error.name == "InternalError") return ["fatal", error.name, error.message];
    if (error.error && error.reason) return ["error", error.error, error.reason];
    if (error.name) return ["error", error.name, error.message !== undefined ? error.message : describe(error)];
    return ["error", "unnamed_error", describe(error)];
  }
  function answer(work) {
    try {
      return JSON.stringify({ ok: work() });
    } catch (error) {
      var reported = failure(error);
      try {
        return JSON.stringify({ error: reported });
      } catch (unserialisable) {
        return JSON.stringify({ error: [reported[0], String(reported[1]), describe(reported[2])] });
      }
    }
  }

  // ---------------------------------------------------------------- views
  var mapSets = {};
  function handleViewError(error, doc) {
    if (error == "fatal_error") throw ["error", "map_runtime_error", "function raised 'fatal_error'"];
    if (error && error[0] == "fatal") throw error;
    if (error && error.name == "InternalError") throw ["fatal", error.name, error.message];
    var message = "function raised exception " + describe(error);
    if (doc) message += " with doc._id " + doc._id;
    log(message);
  }

  var reduceSandbox = null;
  var reduceFunctions = {};
  function reduceFunction(source) {
    if (!Object.prototype.hasOwnProperty.call(reduceFunctions, source)) {
      if (reduceSandbox === null) reduceSandbox = makeSandbox({}, emit);
      reduceFunctions[source] = compileIn(reduceSandbox, source);
    }
    return reduceFunctions[source];
  }

  var reduceLimit = { mode: "true", threshold: 5000, ratio: 2.0 };
  function runReduce(sources, keys, values, rereduce, context, inputLength) {
    var functions = sources.map(reduceFunction);
    var reductions = new Array(functions.length);
    for (var i = 0; i < functions.length; i++) {
      try {
        reductions[i] = functions[i](keys, values, rereduce);
      } catch (error) {
        handleViewError(error);
        reductions[i] = null;
      }
    }
    var line = JSON.stringify(reductions);
    var codeSize = 0;
    for (var j = 0; j < sources.length; j++) codeSize += sources[j].length;
    var input = inputLength - codeSize;
    if (reduceLimit.mode !== "false" && line.length > reduceLimit.threshold && line.length * reduceLimit.ratio > input) {
      var message = ["Reduce output must shrink more rapidly:", "input size:", input, "output size:", line.length,
                     "context:", context].join(" ");
      if (reduceLimit.mode === "log") log("reduce_overflow_error: " + message);
      else throw ["error", "reduce_overflow_error", message];
    }
    return reductions;
  }

  // ---------------------------------------------------------------- design documents
  var ddocs = {};
  function cachedDesignDocument(id, rev) {
    var entry = ddocs[id];
    if (!entry || entry.rev !== rev) throw ["fatal", "query_protocol_error", "uncached design doc: " + id];
    return entry;
  }
  var commands = {
    lists: runList, shows: runShow, filters: runFilter, views: runViewFilter, updates: runUpdate,
    validate_doc_update: runValidate, rewrites: runRewrite
  };

  globalThis.__queryServer = Object.freeze({
    configure: function (configText) {
      var config = JSON.parse(configText);
      reduceLimit = { mode: String(config.reduce_limit), threshold: config.reduce_limit_threshold, ratio: config.reduce_limit_ratio };
    },
    compile: function (source) {
      return answer(function () {
        var sandbox = makeSandbox({ views: { lib: null } }, emit);
        try { compileIn(sandbox, source); } finally { host.release(sandbox.id); }
        return true;
      });
    },
    addMapSet: function (id, sourcesText, libText) {
      return answer(function () {
        var lib = JSON.parse(libText);
        var sandbox = makeSandbox({ views: { lib: lib } }, emit);
        try {
          var functions = JSON.parse(sourcesText).map(function (source) { return compileIn(sandbox, source); });
          mapSets[id] = { functions: functions, sandbox: sandbox };
        } catch (error) {
          host.release(sandbox.id);
          throw error;
        }
        return true;
      });
    },
    dropMapSet: function (id) {
      var set = mapSets[id];
      if (set) { host.release(set.sandbox.id); delete mapSets[id]; }
    },
    map: function (id, documentsText) {
      return answer(function () {
        var set = mapSets[id];
        var documents = JSON.parse(documentsText);
        var results = new Array(documents.length);
        for (var d = 0; d < documents.length; d++) {
          var doc = sealJSON(documents[d]);
          var perFunction = new Array(set.functions.length);
          for (var f = 0; f < set.functions.length; f++) {
            emitted = [];
            try {
              set.functions[f](doc);
              perFunction[f] = emitted;
            } catch (error) {
              handleViewError(error, doc);
              perFunction[f] = [];
            }
          }
          results[d] = perFunction;
        }
        emitted = [];
        return results;
      });
    },
    reduce: function (sourcesText, rowsText, context) {
      return answer(function () {
        var sources = JSON.parse(sourcesText), rows = JSON.parse(rowsText);
        var keys = new Array(rows.length), values = new Array(rows.length);
        for (var i = 0; i < rows.length; i++) { keys[i] = rows[i][0]; values[i] = rows[i][1]; }
        var length = 10 + sourcesText.length + 1 + rowsText.length + 1 + JSON.stringify(context).length + 1;
        return [true, runReduce(sources, keys, values, false, context, length)];
      });
    },
    rereduce: function (sourcesText, valuesText, context) {
      return answer(function () {
        var sources = JSON.parse(sourcesText);
        var length = 12 + sourcesText.length + 1 + valuesText.length + 1 + JSON.stringify(context).length + 1;
        return [true, runReduce(sources, null, JSON.parse(valuesText), true, context, length)];
      });
    },
    newDesignDocument: function (id, rev, documentText) {
      return answer(function () {
        var previous = ddocs[id];
        if (previous) {
          if (previous.sandbox) host.release(previous.sandbox.id);
          if (previous.viewSandbox) host.release(previous.viewSandbox.id);
        }
        ddocs[id] = { rev: rev, doc: JSON.parse(documentText), sandbox: null, viewSandbox: null };
        return true;
      });
    },
    callDesignDocument: function (id, rev, pathText, argumentsText) {
      return answer(function () {
        var entry = cachedDesignDocument(id, rev);
        var ddoc = entry.doc;
        var path = JSON.parse(pathText);
        var command = path[0];
        var run = commands[command];
        if (!run) throw ["fatal", "unknown_command", "unknown ddoc command '" + command + "'"];
        var point = ddoc, fun;
        for (var i = 0; i < path.length; i++) {
          if (i + 1 == path.length) {
            fun = point[path[i]];
            if (!fun) throw ["error", "not_found", "missing " + path[0] + " function " + path[i] + " on design doc " + id];
            if (typeof fun != "function") {
              var sandbox;
              if (command === "views") {
                if (!entry.viewSandbox) entry.viewSandbox = makeSandbox(ddoc, filterEmit);
                sandbox = entry.viewSandbox;
              } else {
                if (!entry.sandbox) entry.sandbox = makeSandbox(ddoc, emit);
                sandbox = entry.sandbox;
              }
              fun = compileIn(sandbox, fun, path.join("."));
              point[path[i]] = fun;
            }
          } else {
            point = point[path[i]];
          }
        }
        return run(fun, ddoc, JSON.parse(argumentsText));
      });
    }
  });

  // The helpers every sandbox shares cannot be changed by one design document for the others.
  [emit, filterEmit, sum, log, toJSON, isArray, provides, registerType, start, send, getRow].forEach(Object.freeze);
})(__host);
"""#
}
