/*
 * vmread.h - read a stretch of a target's memory, all of it or nothing.
 *
 * Memory is read with process_vm_readv(), never with PTRACE_PEEKDATA
 * (ptctl.h): one system call for the whole stretch, not one a word, and
 * it works whether or not the target is stopped or traced by ptprof (the
 * unwinder reads a stack past its copy, the module cache the vDSO, the
 * Python reader the runtime's structures, after the release too).
 *
 * Contract: vmread_all() reads len bytes at addr of process (or thread)
 * pid into buf: 0 when all were read; -1 otherwise, with process_vm_readv()'s
 * errno (ESRCH: the process is gone, its memory too; EFAULT: an address
 * not mapped; EPERM), or EFAULT for a short read (a stretch running into
 * an unmapped page), buf then partly written.  One iovec each side: no
 * splitting, no partial result.  Never prints or exits.
 */
#ifndef PTPROF_VMREAD_H
#define PTPROF_VMREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int vmread_all(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif /* PTPROF_VMREAD_H */
