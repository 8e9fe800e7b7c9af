/** Facts of the simulated device that the apps service and its command families share. */

/** The pid of the shell that runs commands (`$$` of the simulated sh). */
export const SHELL_PID = 4242;

/** Largest `-S` size `cmd package install` accepts. */
export const MAX_INSTALL_BYTES = 64 * 1024 * 1024;

/** Seconds a rebooting device is off the list. */
export const REBOOT_SECONDS = 3;
