// JavaScriptCore's C API from WebKitGTK (Debian: libjavascriptcoregtk-4.1-dev): the same API Apple
// platforms ship as the JavaScriptCore framework. Imported only by CloudantJavaScript.
#include <JavaScriptCore/JavaScript.h>

// The execution time limit of a context group. The library exports these (Apple's JSContext watchdog is
// built on them) but WebKitGTK does not install JSContextRefPrivate.h, which declares them; the
// declarations below are that header's, so a function that runs past its time is stopped inside the
// engine (a TerminationException that scripts cannot catch) and the process goes on.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback, void *context);
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

// Whether a context's scripts may compile code at run time (`eval`, the `Function` constructor). Exported by
// the library and declared in the same uninstalled header. Design functions run with it off, as CouchDB's
// SpiderMonkey sandbox runs them: `emit.constructor('return this')()` throws instead of reaching the global.
JS_EXPORT void JSGlobalContextSetEvalEnabled(JSGlobalContextRef ctx, bool enabled, JSStringRef message);

// The library's version (WebKitGTK's GObject API, <jsc/jsc.h>), which `/_node/{node}/_versions` reports.
unsigned int jsc_get_major_version(void);
unsigned int jsc_get_minor_version(void);
unsigned int jsc_get_micro_version(void);
