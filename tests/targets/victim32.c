/* SPDX-License-Identifier: BSD-2-Clause */
/* A 32-bit process (built with -m32): jeattach must refuse it clearly.
 * Prints "ready PID" and waits until killed. */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
