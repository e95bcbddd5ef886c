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
