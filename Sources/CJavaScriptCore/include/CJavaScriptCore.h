// JavaScriptCore's C API, the part design functions use, reached through a library loaded on first use.
//
// The engine is Debian's libjavascriptcoregtk-4.1 (WebKitGTK's build of the C API Apple platforms ship as the
// JavaScriptCore framework). Linking it would load it, with ICU and GLib behind it, into every process that
// links CloudantJavaScript: about 7 MB of resident memory at start (measured: a C program linking libxml2,
// SQLite and zstd starts at 4.2 MB, 11.0 MB with libjavascriptcoregtk-4.1 too), in the CLI's health import or
// replication as much as in a server that runs views. So the library is opened with dlopen when the first
// engine instance is made (`cjs_load`), and the functions below call through the addresses found then.
//
// The types are the API's own: opaque references and the class definition whose layout the library reads.
// Nothing here may be called before `cjs_load` has succeeded.
#ifndef CJAVASCRIPTCORE_H
#define CJAVASCRIPTCORE_H

#include <stdbool.h>
#include <stddef.h>

typedef const struct OpaqueJSContextGroup *JSContextGroupRef;
typedef const struct OpaqueJSContext *JSContextRef;
typedef struct OpaqueJSContext *JSGlobalContextRef;
typedef struct OpaqueJSString *JSStringRef;
typedef struct OpaqueJSClass *JSClassRef;
typedef struct OpaqueJSPropertyNameArray *JSPropertyNameArrayRef;
typedef const struct OpaqueJSValue *JSValueRef;
typedef struct OpaqueJSValue *JSObjectRef;

typedef unsigned JSPropertyAttributes;
typedef unsigned JSClassAttributes;
enum { kJSPropertyAttributeNone = 0 };

/// The callback of an object called as a function.
typedef JSValueRef (*JSObjectCallAsFunctionCallback)(
    JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject, size_t argumentCount,
    const JSValueRef arguments[], JSValueRef *exception);

/// Asked by the watchdog when a script has run past its group's time limit: true stops it.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// A class definition, laid out as the library reads it. Only `callAsFunction` is used here; the other
/// callbacks keep their places as untyped pointers and stay NULL. Start from a zeroed value (Swift's `init()`),
/// which is what the API's `kJSClassDefinitionEmpty` holds.
typedef struct {
    int version;
    JSClassAttributes attributes;
    const char *className;
    JSClassRef parentClass;
    const void *staticValues;
    const void *staticFunctions;
    const void *initialize;
    const void *finalize;
    const void *hasProperty;
    const void *getProperty;
    const void *setProperty;
    const void *deleteProperty;
    const void *getPropertyNames;
    JSObjectCallAsFunctionCallback callAsFunction;
    const void *callAsConstructor;
    const void *hasInstance;
    const void *convertToType;
} JSClassDefinition;

/// The library's functions, found by name when it is loaded.
typedef struct {
    JSContextGroupRef (*JSContextGroupCreate)(void);
    void (*JSContextGroupRelease)(JSContextGroupRef group);
    JSGlobalContextRef (*JSGlobalContextCreateInGroup)(JSContextGroupRef group, JSClassRef globalObjectClass);
    void (*JSGlobalContextRelease)(JSGlobalContextRef ctx);
    JSObjectRef (*JSContextGetGlobalObject)(JSContextRef ctx);
    JSValueRef (*JSEvaluateScript)(
        JSContextRef ctx, JSStringRef script, JSObjectRef thisObject, JSStringRef sourceURL, int startingLineNumber,
        JSValueRef *exception);

    JSClassRef (*JSClassCreate)(const JSClassDefinition *definition);
    void (*JSClassRelease)(JSClassRef jsClass);
    JSObjectRef (*JSObjectMake)(JSContextRef ctx, JSClassRef jsClass, void *data);
    void *(*JSObjectGetPrivate)(JSObjectRef object);
    JSObjectRef (*JSObjectMakeError)(
        JSContextRef ctx, size_t argumentCount, const JSValueRef arguments[], JSValueRef *exception);
    JSValueRef (*JSObjectGetProperty)(JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception);
    void (*JSObjectSetProperty)(
        JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef value,
        JSPropertyAttributes attributes, JSValueRef *exception);
    JSValueRef (*JSObjectCallAsFunction)(
        JSContextRef ctx, JSObjectRef object, JSObjectRef thisObject, size_t argumentCount,
        const JSValueRef arguments[], JSValueRef *exception);
    JSPropertyNameArrayRef (*JSObjectCopyPropertyNames)(JSContextRef ctx, JSObjectRef object);
    size_t (*JSPropertyNameArrayGetCount)(JSPropertyNameArrayRef array);
    JSStringRef (*JSPropertyNameArrayGetNameAtIndex)(JSPropertyNameArrayRef array, size_t index);
    void (*JSPropertyNameArrayRelease)(JSPropertyNameArrayRef array);

    bool (*JSValueIsNull)(JSContextRef ctx, JSValueRef value);
    JSValueRef (*JSValueMakeNull)(JSContextRef ctx);
    JSValueRef (*JSValueMakeUndefined)(JSContextRef ctx);
    JSValueRef (*JSValueMakeNumber)(JSContextRef ctx, double number);
    JSValueRef (*JSValueMakeString)(JSContextRef ctx, JSStringRef string);
    double (*JSValueToNumber)(JSContextRef ctx, JSValueRef value, JSValueRef *exception);
    JSObjectRef (*JSValueToObject)(JSContextRef ctx, JSValueRef value, JSValueRef *exception);
    JSStringRef (*JSValueToStringCopy)(JSContextRef ctx, JSValueRef value, JSValueRef *exception);
    void (*JSValueProtect)(JSContextRef ctx, JSValueRef value);
    void (*JSValueUnprotect)(JSContextRef ctx, JSValueRef value);

    JSStringRef (*JSStringCreateWithUTF8CString)(const char *string);
    void (*JSStringRelease)(JSStringRef string);
    size_t (*JSStringGetMaximumUTF8CStringSize)(JSStringRef string);
    size_t (*JSStringGetUTF8CString)(JSStringRef string, char *buffer, size_t bufferSize);

    // Exported by the library, declared in its uninstalled JSContextRefPrivate.h (Apple's JSContext watchdog
    // is built on them): a script that runs past the limit is stopped inside the engine with a termination
    // exception scripts cannot catch, and the process goes on.
    void (*JSContextGroupSetExecutionTimeLimit)(
        JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context);
    // Same header: whether a context may compile code at run time (`eval`, the `Function` constructor). Design
    // functions run with it off, as CouchDB's SpiderMonkey sandbox runs them.
    void (*JSGlobalContextSetEvalEnabled)(JSGlobalContextRef ctx, bool enabled, JSStringRef message);

    // WebKitGTK's GObject API (<jsc/jsc.h>): the version `/_node/{node}/_versions` reports, and the engine's
    // options. The options calls are NULL where the library has none.
    unsigned (*jsc_get_major_version)(void);
    unsigned (*jsc_get_minor_version)(void);
    unsigned (*jsc_get_micro_version)(void);
    int (*jsc_options_set_boolean)(const char *option, int value);
    int (*jsc_options_get_boolean)(const char *option, int *value);
} CJSFunctions;

/// The loaded functions; every member is NULL until `cjs_load` succeeds.
extern CJSFunctions cjs_functions;

/// Opens the library and finds its functions, once per process (later calls return the first answer): Debian's
/// libjavascriptcoregtk-4.1.so.0, or the file the environment variable CLOUDANT_JAVASCRIPTCORE names.
/// Returns true when the engine can be used; otherwise false, with why in `cjs_load_failure()`.
bool cjs_load(void);

/// Why `cjs_load` failed (the loader's message), or NULL when it did not.
const char *cjs_load_failure(void);

/// The library's version; false (and `version` untouched) when it cannot be loaded.
bool cjs_version(unsigned version[3]);

/// Sets one of the engine's boolean options (before its first context group); false where the library cannot be
/// loaded, has no options API or no such option.
bool cjs_set_option(const char *name, bool value);

/// Reads one of the engine's boolean options; false where it cannot be read.
bool cjs_get_option(const char *name, bool *value);

// The API's functions by their own names, so code reads as it would against the framework.

static inline JSContextGroupRef JSContextGroupCreate(void) { return cjs_functions.JSContextGroupCreate(); }
static inline void JSContextGroupRelease(JSContextGroupRef group) { cjs_functions.JSContextGroupRelease(group); }
static inline JSGlobalContextRef JSGlobalContextCreateInGroup(JSContextGroupRef group, JSClassRef globalObjectClass) {
    return cjs_functions.JSGlobalContextCreateInGroup(group, globalObjectClass);
}
static inline void JSGlobalContextRelease(JSGlobalContextRef ctx) { cjs_functions.JSGlobalContextRelease(ctx); }
static inline JSObjectRef JSContextGetGlobalObject(JSContextRef ctx) { return cjs_functions.JSContextGetGlobalObject(ctx); }
static inline JSValueRef JSEvaluateScript(
    JSContextRef ctx, JSStringRef script, JSObjectRef thisObject, JSStringRef sourceURL, int startingLineNumber,
    JSValueRef *exception) {
    return cjs_functions.JSEvaluateScript(ctx, script, thisObject, sourceURL, startingLineNumber, exception);
}

static inline JSClassRef JSClassCreate(const JSClassDefinition *definition) { return cjs_functions.JSClassCreate(definition); }
static inline void JSClassRelease(JSClassRef jsClass) { cjs_functions.JSClassRelease(jsClass); }
static inline JSObjectRef JSObjectMake(JSContextRef ctx, JSClassRef jsClass, void *data) {
    return cjs_functions.JSObjectMake(ctx, jsClass, data);
}
static inline void *JSObjectGetPrivate(JSObjectRef object) { return cjs_functions.JSObjectGetPrivate(object); }
static inline JSObjectRef JSObjectMakeError(
    JSContextRef ctx, size_t argumentCount, const JSValueRef arguments[], JSValueRef *exception) {
    return cjs_functions.JSObjectMakeError(ctx, argumentCount, arguments, exception);
}
static inline JSValueRef JSObjectGetProperty(JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception) {
    return cjs_functions.JSObjectGetProperty(ctx, object, propertyName, exception);
}
static inline void JSObjectSetProperty(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef value, JSPropertyAttributes attributes,
    JSValueRef *exception) {
    cjs_functions.JSObjectSetProperty(ctx, object, propertyName, value, attributes, exception);
}
static inline JSValueRef JSObjectCallAsFunction(
    JSContextRef ctx, JSObjectRef object, JSObjectRef thisObject, size_t argumentCount, const JSValueRef arguments[],
    JSValueRef *exception) {
    return cjs_functions.JSObjectCallAsFunction(ctx, object, thisObject, argumentCount, arguments, exception);
}
static inline JSPropertyNameArrayRef JSObjectCopyPropertyNames(JSContextRef ctx, JSObjectRef object) {
    return cjs_functions.JSObjectCopyPropertyNames(ctx, object);
}
static inline size_t JSPropertyNameArrayGetCount(JSPropertyNameArrayRef array) {
    return cjs_functions.JSPropertyNameArrayGetCount(array);
}
static inline JSStringRef JSPropertyNameArrayGetNameAtIndex(JSPropertyNameArrayRef array, size_t index) {
    return cjs_functions.JSPropertyNameArrayGetNameAtIndex(array, index);
}
static inline void JSPropertyNameArrayRelease(JSPropertyNameArrayRef array) { cjs_functions.JSPropertyNameArrayRelease(array); }

static inline bool JSValueIsNull(JSContextRef ctx, JSValueRef value) { return cjs_functions.JSValueIsNull(ctx, value); }
static inline JSValueRef JSValueMakeNull(JSContextRef ctx) { return cjs_functions.JSValueMakeNull(ctx); }
static inline JSValueRef JSValueMakeUndefined(JSContextRef ctx) { return cjs_functions.JSValueMakeUndefined(ctx); }
static inline JSValueRef JSValueMakeNumber(JSContextRef ctx, double number) { return cjs_functions.JSValueMakeNumber(ctx, number); }
static inline JSValueRef JSValueMakeString(JSContextRef ctx, JSStringRef string) { return cjs_functions.JSValueMakeString(ctx, string); }
static inline double JSValueToNumber(JSContextRef ctx, JSValueRef value, JSValueRef *exception) {
    return cjs_functions.JSValueToNumber(ctx, value, exception);
}
static inline JSObjectRef JSValueToObject(JSContextRef ctx, JSValueRef value, JSValueRef *exception) {
    return cjs_functions.JSValueToObject(ctx, value, exception);
}
static inline JSStringRef JSValueToStringCopy(JSContextRef ctx, JSValueRef value, JSValueRef *exception) {
    return cjs_functions.JSValueToStringCopy(ctx, value, exception);
}
static inline void JSValueProtect(JSContextRef ctx, JSValueRef value) { cjs_functions.JSValueProtect(ctx, value); }
static inline void JSValueUnprotect(JSContextRef ctx, JSValueRef value) { cjs_functions.JSValueUnprotect(ctx, value); }

static inline JSStringRef JSStringCreateWithUTF8CString(const char *string) { return cjs_functions.JSStringCreateWithUTF8CString(string); }
static inline void JSStringRelease(JSStringRef string) { cjs_functions.JSStringRelease(string); }
static inline size_t JSStringGetMaximumUTF8CStringSize(JSStringRef string) {
    return cjs_functions.JSStringGetMaximumUTF8CStringSize(string);
}
static inline size_t JSStringGetUTF8CString(JSStringRef string, char *buffer, size_t bufferSize) {
    return cjs_functions.JSStringGetUTF8CString(string, buffer, bufferSize);
}

static inline void JSContextGroupSetExecutionTimeLimit(
    JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context) {
    cjs_functions.JSContextGroupSetExecutionTimeLimit(group, limit, callback, context);
}
static inline void JSGlobalContextSetEvalEnabled(JSGlobalContextRef ctx, bool enabled, JSStringRef message) {
    cjs_functions.JSGlobalContextSetEvalEnabled(ctx, enabled, message);
}

#endif
