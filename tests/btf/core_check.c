// SPDX-License-Identifier: GPL-2.0
/*
 * core_check OBJECT DIR: load a CO-RE object with libbpf, as an eBPF
 * agent does, attach its program, then fill DIR with more negative
 * dentries than fs.dentry-dir-max allows and wait for the program to
 * report a reclaim pass over DIR. Prints what the program saw; exits 0
 * only if it loaded, attached and saw DIR by name.
 */
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_LEN 32
#define NEGATIVES 2000

struct dir_reclaim {
	unsigned long long passes;
	unsigned long long reclaimed;
	unsigned int name_len;
	char name[NAME_LEN];
};

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	struct dir_reclaim r = { 0 };
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *map;
	char path[4096];
	struct stat st;
	unsigned int key = 0;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: core_check OBJECT DIR\n");
		return 2;
	}
	libbpf_set_print(print_libbpf);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* The CO-RE relocations are made here, against the kernel's BTF. */
	if (bpf_object__load(obj)) {
		fprintf(stderr, "load: %s\n", strerror(errno));
		return 1;
	}
	printf("loaded %s\n", argv[1]);
	prog = bpf_object__find_program_by_name(obj, "on_reclaim_dir");
	map = bpf_object__find_map_by_name(obj, "dir_reclaim");
	if (!prog || !map)
		return 1;
	link = bpf_program__attach(prog);
	if (!link) {
		fprintf(stderr, "attach: %s\n", strerror(errno));
		return 1;
	}
	printf("attached to tp_btf/negative_dentry_reclaim_dir\n");
	for (i = 0; i < NEGATIVES; i++) {
		snprintf(path, sizeof(path), "%s/missing-%d", argv[2], i);
		stat(path, &st);
	}
	/* The directory's work runs from a workqueue: up to 60 s under TCG. */
	for (i = 0; i < 600 && !r.passes; i++) {
		usleep(100000);
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &r, sizeof(r), 0))
			return 1;
	}
	r.name[NAME_LEN - 1] = '\0';
	printf("passes %llu reclaimed %llu dir %.*s (length %u)\n",
	       r.passes, r.reclaimed, (int)r.name_len, r.name, r.name_len);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return r.passes && r.reclaimed &&
	       r.name_len == strlen(basename(argv[2])) &&
	       !strcmp(r.name, basename(argv[2])) ? 0 : 1;
}
