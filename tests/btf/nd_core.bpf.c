// SPDX-License-Identifier: GPL-2.0
/*
 * A CO-RE program of the kind fleets' eBPF agents load: typed arguments
 * of a BTF tracepoint, read through the field offsets of the running
 * kernel's BTF (vmlinux.h is made from the kernel's BTF; libbpf relocates
 * each access against /sys/kernel/btf/vmlinux when it loads). It watches
 * fs.dentry-dir-max reclaim: each pass over a directory, what it took,
 * and the directory's name.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define NAME_LEN 32

struct dir_reclaim {
	__u64 passes;
	__u64 reclaimed;
	__u32 name_len;
	char name[NAME_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dir_reclaim);
} dir_reclaim SEC(".maps");

SEC("tp_btf/negative_dentry_reclaim_dir")
int BPF_PROG(on_reclaim_dir, struct dentry *dir, long scanned, long reclaimed)
{
	__u32 key = 0;
	struct dir_reclaim *r = bpf_map_lookup_elem(&dir_reclaim, &key);

	if (!r)
		return 0;
	__sync_fetch_and_add(&r->passes, 1);
	__sync_fetch_and_add(&r->reclaimed, reclaimed);
	/* struct dentry and struct qstr, at this kernel's offsets */
	r->name_len = BPF_CORE_READ(dir, d_name.len);
	bpf_probe_read_kernel_str(r->name, sizeof(r->name),
				  BPF_CORE_READ(dir, d_name.name));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
