// Opens libjavascriptcoregtk-4.1 on first use and finds the functions CJavaScriptCore.h calls through (see
// that header for why the library is not linked).
#include "CJavaScriptCore.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

CJSFunctions cjs_functions;

// The library's run-time name (its soname): what Debian's libjavascriptcoregtk-4.1-0 package installs. The
// environment variable names another file with the same C API instead (a WebKitGTK built elsewhere).
static const char *const default_library = "libjavascriptcoregtk-4.1.so.0";
static const char *const library_variable = "CLOUDANT_JAVASCRIPTCORE";

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static char failure[512];

// One entry per member of CJSFunctions: its symbol, where its address goes, and whether the engine can run
// without it (the options calls, which only tune it).
struct entry {
    const char *name;
    void **slot;
    bool optional;
};

#define REQUIRED(function) {#function, (void **)&found.function, false}
#define OPTIONAL(function) {#function, (void **)&found.function, true}

static void load(void) {
    const char *named = getenv(library_variable);
    const char *library_name = named != NULL && named[0] != '\0' ? named : default_library;
    // RTLD_LOCAL: the library's symbols stay out of the process's global scope, so nothing else binds to them.
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : library_name);
        return;
    }
    CJSFunctions found = {0};
    const struct entry entries[] = {
        REQUIRED(JSContextGroupCreate), REQUIRED(JSContextGroupRelease), REQUIRED(JSGlobalContextCreateInGroup),
        REQUIRED(JSGlobalContextRelease), REQUIRED(JSContextGetGlobalObject), REQUIRED(JSEvaluateScript),
        REQUIRED(JSClassCreate), REQUIRED(JSClassRelease), REQUIRED(JSObjectMake), REQUIRED(JSObjectGetPrivate),
        REQUIRED(JSObjectMakeError), REQUIRED(JSObjectGetProperty), REQUIRED(JSObjectSetProperty),
        REQUIRED(JSObjectCallAsFunction), REQUIRED(JSObjectCopyPropertyNames), REQUIRED(JSPropertyNameArrayGetCount),
        REQUIRED(JSPropertyNameArrayGetNameAtIndex), REQUIRED(JSPropertyNameArrayRelease), REQUIRED(JSValueIsNull),
        REQUIRED(JSValueMakeNull), REQUIRED(JSValueMakeUndefined), REQUIRED(JSValueMakeNumber),
        REQUIRED(JSValueMakeString), REQUIRED(JSValueToNumber), REQUIRED(JSValueToObject),
        REQUIRED(JSValueToStringCopy), REQUIRED(JSValueProtect), REQUIRED(JSValueUnprotect),
        REQUIRED(JSStringCreateWithUTF8CString), REQUIRED(JSStringRelease), REQUIRED(JSStringGetMaximumUTF8CStringSize),
        REQUIRED(JSStringGetUTF8CString), REQUIRED(JSContextGroupSetExecutionTimeLimit),
        REQUIRED(JSGlobalContextSetEvalEnabled), REQUIRED(jsc_get_major_version), REQUIRED(jsc_get_minor_version),
        REQUIRED(jsc_get_micro_version), OPTIONAL(jsc_options_set_boolean), OPTIONAL(jsc_options_get_boolean),
    };
    for (size_t index = 0; index < sizeof entries / sizeof entries[0]; index++) {
        *entries[index].slot = dlsym(handle, entries[index].name);
        if (*entries[index].slot == NULL && !entries[index].optional) {
            snprintf(failure, sizeof failure, "%s has no %s", library_name, entries[index].name);
            // The handle stays open: a library that was found is not worth unloading.
            return;
        }
    }
    cjs_functions = found;
    loaded = true;
}

bool cjs_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *cjs_load_failure(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : failure;
}

bool cjs_version(unsigned version[3]) {
    if (!cjs_load()) return false;
    version[0] = cjs_functions.jsc_get_major_version();
    version[1] = cjs_functions.jsc_get_minor_version();
    version[2] = cjs_functions.jsc_get_micro_version();
    return true;
}

bool cjs_set_option(const char *name, bool value) {
    if (!cjs_load() || cjs_functions.jsc_options_set_boolean == NULL) return false;
    return cjs_functions.jsc_options_set_boolean(name, value ? 1 : 0) != 0;
}

bool cjs_get_option(const char *name, bool *value) {
    if (!cjs_load() || cjs_functions.jsc_options_get_boolean == NULL) return false;
    int read = 0;
    if (cjs_functions.jsc_options_get_boolean(name, &read) == 0) return false;
    *value = read != 0;
    return true;
}
