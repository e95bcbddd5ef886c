// JavaScriptCore (C API): maps the documents of docs.jsonl in batches, reports time and memory, then checks
// that a function that never ends is stopped and the context still works, and which ES2020+ features run.
#include <JavaScriptCore/JavaScript.h>
#include "common.h"

typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);
void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context);
static bool terminate(JSContextRef context, void *data) { return true; }

static JSValueRef evaluate(JSGlobalContextRef context, const char *source, JSValueRef *exception) {
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSValueRef value = JSEvaluateScript(context, script, NULL, NULL, 1, exception);
    JSStringRelease(script);
    return value;
}

int main(int argc, char **argv) {
    int batch = argc > 1 ? atoi(argv[1]) : 1000;
    size_t length, script_length;
    char *docs = read_file("docs.jsonl", &length);
    char *script = read_file("map.js", &script_length);
    long resident_before, peak_before;
    memory_kb(&resident_before, &peak_before);

    JSContextGroupRef group = JSContextGroupCreate();
    JSGlobalContextRef context = JSGlobalContextCreateInGroup(group, NULL);
    JSValueRef exception = NULL;
    evaluate(context, script, &exception);
    JSStringRef name = JSStringCreateWithUTF8CString("mapBatch");
    JSObjectRef map = (JSObjectRef)JSObjectGetProperty(context, JSContextGetGlobalObject(context), name, NULL);

    char *text = malloc((size_t)batch * 1024 + 16);
    char *cursor = docs, *end = docs + length;
    long mapped = 0;
    size_t output = 0;
    double started = now_seconds();
    while (cursor < end) {
        size_t used;
        mapped += next_batch(&cursor, end, batch, text, &used);
        JSStringRef input = JSStringCreateWithUTF8CString(text);
        JSValueRef argument = JSValueMakeString(context, input);
        JSStringRelease(input);
        JSValueRef result = JSObjectCallAsFunction(context, map, NULL, 1, &argument, &exception);
        JSStringRef rows = JSValueToStringCopy(context, result, NULL);
        size_t capacity = JSStringGetMaximumUTF8CStringSize(rows);
        char *bytes = malloc(capacity);
        output += JSStringGetUTF8CString(rows, bytes, capacity);
        free(bytes);
        JSStringRelease(rows);
    }
    double elapsed = now_seconds() - started;
    long resident, peak;
    memory_kb(&resident, &peak);

    JSContextGroupSetExecutionTimeLimit(group, 0.5, terminate, NULL);
    double loop_started = now_seconds();
    exception = NULL;
    evaluate(context, "(function () { for (;;) {} })()", &exception);
    double stopped_after = now_seconds() - loop_started;
    exception = NULL;
    JSValueRef two = evaluate(context, "1 + 1", &exception);
    int usable = exception == NULL && JSValueToNumber(context, two, NULL) == 2;
    exception = NULL;
    JSValueRef features = evaluate(context,
        "(() => { const o = {a: 1, b: {c: 2}}; const {a, ...r} = o; return [r.b?.c ?? 0, 2n ** 64n, [1, [2, [3]]].flat(Infinity).length,"
        " Object.fromEntries([['x', 1]]).x, 'abc'.replaceAll('b', 'x'), [1, 2, 3].at(-1), Object.hasOwn(o, 'a')].join(','); })()",
        &exception);
    int modern = exception == NULL && JSValueIsString(context, features);

    printf("{\"engine\":\"JavaScriptCore\",\"batch\":%d,\"documents\":%ld,\"seconds\":%.3f,\"documents_per_second\":%.0f,"
           "\"engine_peak_mb\":%.1f,\"output_bytes\":%zu,\"loop_stopped_after_seconds\":%.2f,\"usable_after\":%s,\"es2020\":%s}\n",
           batch, mapped, elapsed, mapped / elapsed, (peak - resident_before) / 1024.0, output, stopped_after,
           usable ? "true" : "false", modern ? "true" : "false");
    return 0;
}
