// Shared by both harnesses: the documents, the clock and the process's memory.
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
