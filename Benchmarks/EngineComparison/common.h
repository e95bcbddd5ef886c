// Shared by both harnesses: the inputs, the clock, the process's memory and the result line.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(1); }
    fseek(file, 0, SEEK_END);
    *length = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = (char *)malloc(*length + 1);
    if (fread(bytes, 1, *length, file) != *length) { perror(path); exit(1); }
    bytes[*length] = 0;
    fclose(file);
    return bytes;
}

/// Resident memory now and at its peak, in kB (/proc/self/status: VmRSS, VmHWM).
static void memory_kb(long *resident, long *peak) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    *resident = *peak = 0;
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmRSS:", 6) == 0) *resident = atol(line + 6);
        if (strncmp(line, "VmHWM:", 6) == 0) *peak = atol(line + 6);
    }
    if (status) fclose(status);
}

/// The next `batch` lines of `docs` as one JSON array in `out`; returns how many documents it holds.
static int next_batch(char **cursor, char *end, int batch, char *out, size_t *length) {
    int count = 0;
    size_t used = 0;
    out[used++] = '[';
    while (*cursor < end && count < batch) {
        char *newline = (char *)memchr(*cursor, '\n', (size_t)(end - *cursor));
        if (!newline) newline = end;
        if (count) out[used++] = ',';
        memcpy(out + used, *cursor, (size_t)(newline - *cursor));
        used += (size_t)(newline - *cursor);
        *cursor = newline + 1;
        count++;
    }
    out[used++] = ']';
    out[used] = 0;
    *length = used;
    return count;
}

/// What both harnesses read before they start: the batch size (argv[1], 1000 by default), the documents and the
/// map script, and the process's resident memory before the engine exists.
struct inputs {
    int batch;
    char *docs;
    size_t length;
    char *script;
    long resident_before;
};

static struct inputs read_inputs(int argc, char **argv) {
    struct inputs in;
    size_t script_length;
    long peak_before;
    in.batch = argc > 1 ? atoi(argv[1]) : 1000;
    in.docs = read_file("docs.jsonl", &in.length);
    in.script = read_file("map.js", &script_length);
    memory_kb(&in.resident_before, &peak_before);
    return in;
}

/// A function that never ends: the engine's time limit must stop it.
#define ENDLESS_LOOP "(function () { for (;;) {} })()"

/// ES2020+ features in one expression; it evaluates to a string where every one of them runs.
#define ES2020_PROBE \
    "(() => { const o = {a: 1, b: {c: 2}}; const {a, ...r} = o; return [r.b?.c ?? 0, 2n ** 64n, [1, [2, [3]]].flat(Infinity).length," \
    " Object.fromEntries([['x', 1]]).x, 'abc'.replaceAll('b', 'x'), [1, 2, 3].at(-1), Object.hasOwn(o, 'a')].join(','); })()"

/// The run's JSON line, which run.sh collects.
static void print_result(const char *engine, const struct inputs *in, long mapped, double elapsed, long peak, size_t output,
                         double stopped_after, int usable, int modern) {
    printf("{\"engine\":\"%s\",\"batch\":%d,\"documents\":%ld,\"seconds\":%.3f,\"documents_per_second\":%.0f,"
           "\"engine_peak_mb\":%.1f,\"output_bytes\":%zu,\"loop_stopped_after_seconds\":%.2f,\"usable_after\":%s,\"es2020\":%s}\n",
           engine, in->batch, mapped, elapsed, mapped / elapsed, (peak - in->resident_before) / 1024.0, output, stopped_after,
           usable ? "true" : "false", modern ? "true" : "false");
}
