/* main() for fuzz targets built without libFuzzer: runs LLVMFuzzerTestOneInput once per file
 * named on the command line (directories: every file in them). Used by `make check` to replay
 * tests/fuzz-regressions/ and the seed corpora with the ordinary and the ASan/UBSan builds. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		abort();
	/* an exact-size copy, so ASan sees reads past the input's end */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int replay(const char *path, int *count)
{
	struct stat st;
	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return replay_file(path);
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort), rc = 0;
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];
		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			rc |= replay(sub, count);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		rc |= replay(argv[i], &count);
	printf("replayed %d inputs\n", count);
	return rc ? 1 : 0;
}
