/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_cfiloop: the main thread sits (in pause()) under a function whose
 * call-frame information computes its CFA with a DWARF expression that
 * loops forever (DW_CFA_def_cfa_expression { DW_OP_skip -3 }): any unwinder
 * that evaluates it without a bound never returns. Two other threads block
 * at safe points. Prints "ready <pid>"; SIGUSR1 (taken by a thread, the
 * main one never returns from cfi_loop): "report ok", exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

void cfi_loop(void);
/* 0x0f: DW_CFA_def_cfa_expression, ULEB length 3, then DW_OP_skip (0x2f)
 * with the 2-byte offset -3: back to itself. */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl cfi_loop\n"
	".type cfi_loop,@function\n"
	"cfi_loop:\n"
	".cfi_startproc\n"
	"sub $8, %rsp\n"
	".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n"
	"1: call pause\n"
	"jmp 1b\n"
	".cfi_endproc\n"
	".size cfi_loop, .-cfi_loop\n");
#elif defined(__aarch64__)
/* The same on arm64: save the frame record (x29, x30) so that the calls
 * below do not lose the return address, then the looping CFA. */
__asm__(".text\n"
	".globl cfi_loop\n"
	".type cfi_loop,%function\n"
	"cfi_loop:\n"
	".cfi_startproc\n"
	"stp x29, x30, [sp, -16]!\n"
	".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n"
	"1: bl pause\n"
	"b 1b\n"
	".cfi_endproc\n"
	".size cfi_loop, .-cfi_loop\n");
#else
#error "victim_cfiloop: no cfi_loop for this architecture (x86_64 and aarch64 only)"
#endif

static void *waiter(void *arg)
{
	sigset_t *set = arg;
	int sig;
	sigwait(set, &sig);
	printf("report ok\n");
	fflush(stdout);
	exit(0);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Kept at file scope: stored, never read, and not a set-but-unused local. */
static void *volatile keep;

int main(void)
{
	keep = malloc(1000); /* jemalloc linked and set up */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	static sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t a, b;
	pthread_create(&a, NULL, waiter, &set);
	pthread_create(&b, NULL, sleeper, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	cfi_loop();
	return 0;
}
