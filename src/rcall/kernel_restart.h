/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's internal restart codes (include/linux/errno.h): what an
 * interrupted system call leaves in its result register for do_signal,
 * never seen by a program. The same values on every architecture. */
#ifndef JEATTACH_KERNEL_RESTART_H
#define JEATTACH_KERNEL_RESTART_H

#define ERESTARTSYS 512           /* restarted unless a handler lacks SA_RESTART */
#define ERESTARTNOINTR 513        /* always restarted */
#define ERESTARTNOHAND 514        /* restarted unless a handler runs */
#define ERESTART_RESTARTBLOCK 516 /* as NOHAND, through restart_syscall */

#endif
