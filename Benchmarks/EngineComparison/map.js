// The work both engines are measured on: what the store's query server does for a batch of documents
// (parse the batch, seal each document, run the map function, collect what it emits, serialise the rows).
function seal(value) {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) { for (var i = 0; i < value.length; i++) seal(value[i]); }
  else { for (var name in value) seal(value[name]); }
  return value;
}
var emitted = [];
function emit(key, value) { emitted.push([key, value]); }
var map = function (doc) { emit(doc.value, null); };
function mapBatch(text) {
  var docs = JSON.parse(text), out = new Array(docs.length);
  for (var i = 0; i < docs.length; i++) {
    var doc = seal(docs[i]);
    emitted = [];
    try { map(doc); out[i] = [emitted]; } catch (e) { out[i] = [[]]; }
  }
  return JSON.stringify(out);
}
