// SpiderMonkey 102 (C++ API): the same work as jsc_map.c; the time limit through an interrupt callback a
// watchdog thread requests.
#include <jsapi.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Initialization.h>
#include <js/SourceText.h>
#include <atomic>
#include <thread>
#include "common.h"

static JSClass global_class = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps};
static std::atomic<bool> expired(false);
static bool interrupt(JSContext *) { return !expired.load(); }

static bool evaluate(JSContext *context, const char *source, JS::MutableHandleValue result) {
    JS::CompileOptions options(context);
    options.setFileAndLine("harness", 1);
    JS::SourceText<mozilla::Utf8Unit> text;
    if (!text.init(context, source, strlen(source), JS::SourceOwnership::Borrowed)) return false;
    return JS::Evaluate(context, options, text, result);
}

int main(int argc, char **argv) {
    struct inputs in = read_inputs(argc, argv);

    JS_Init();
    JSContext *context = JS_NewContext(JS::DefaultHeapMaxBytes);
    JS::InitSelfHostedCode(context);
    JS::RealmOptions realm;
    JS::RootedObject global(context, JS_NewGlobalObject(context, &global_class, nullptr, JS::FireOnNewGlobalHook, realm));
    JSAutoRealm entered(context, global);
    JS::InitRealmStandardClasses(context);
    JS::RootedValue value(context);
    evaluate(context, in.script, &value);

    char *text = (char *)malloc((size_t)in.batch * 1024 + 16);
    char *cursor = in.docs, *end = in.docs + in.length;
    long mapped = 0;
    size_t output = 0;
    double started = now_seconds();
    while (cursor < end) {
        size_t used;
        mapped += next_batch(&cursor, end, in.batch, text, &used);
        JS::RootedString input(context, JS_NewStringCopyUTF8N(context, JS::UTF8Chars(text, used)));
        JS::RootedValueArray<1> arguments(context);
        arguments[0].setString(input);
        JS::RootedValue result(context);
        JS_CallFunctionName(context, global, "mapBatch", arguments, &result);
        JS::RootedString rows(context, result.toString());
        output += strlen(JS_EncodeStringToUTF8(context, rows).get());
    }
    double elapsed = now_seconds() - started;
    long resident, peak;
    memory_kb(&resident, &peak);

    JS_AddInterruptCallback(context, interrupt);
    std::thread watchdog([&] {
        struct timespec half = {0, 500000000};
        nanosleep(&half, nullptr);
        expired = true;
        JS_RequestInterruptCallback(context);
    });
    double loop_started = now_seconds();
    evaluate(context, ENDLESS_LOOP, &value);
    double stopped_after = now_seconds() - loop_started;
    watchdog.join();
    JS_ClearPendingException(context);
    expired = false;
    bool usable = evaluate(context, "1 + 1", &value) && value.toNumber() == 2;
    bool modern = evaluate(context, ES2020_PROBE, &value) && value.isString();

    print_result("SpiderMonkey 102", &in, mapped, elapsed, peak, output, stopped_after, usable, modern);
    JS_DestroyContext(context);
    JS_ShutDown();
    return 0;
}
