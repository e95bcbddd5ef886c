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
    struct inputs in = read_inputs(argc, argv);

    JSContextGroupRef group = JSContextGroupCreate();
    JSGlobalContextRef context = JSGlobalContextCreateInGroup(group, NULL);
    JSValueRef exception = NULL;
    evaluate(context, in.script, &exception);
    JSStringRef name = JSStringCreateWithUTF8CString("mapBatch");
    JSObjectRef map = (JSObjectRef)JSObjectGetProperty(context, JSContextGetGlobalObject(context), name, NULL);

    char *text = malloc((size_t)in.batch * 1024 + 16);
    char *cursor = in.docs, *end = in.docs + in.length;
    long mapped = 0;
    size_t output = 0;
    double started = now_seconds();
    while (cursor < end) {
        size_t used;
        mapped += next_batch(&cursor, end, in.batch, text, &used);
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
    evaluate(context, ENDLESS_LOOP, &exception);
    double stopped_after = now_seconds() - loop_started;
    exception = NULL;
    JSValueRef two = evaluate(context, "1 + 1", &exception);
    int usable = exception == NULL && JSValueToNumber(context, two, NULL) == 2;
    exception = NULL;
    JSValueRef features = evaluate(context, ES2020_PROBE, &exception);
    int modern = exception == NULL && JSValueIsString(context, features);

    print_result("JavaScriptCore", &in, mapped, elapsed, peak, output, stopped_after, usable, modern);
    return 0;
}
