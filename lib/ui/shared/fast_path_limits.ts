/** Limits of the fast paths that tool parameters need too (a leaf: imports nothing). */

/** JPEG quality: default and bounds. */
export const DEFAULT_JPEG_QUALITY = 80;
export const MIN_JPEG_QUALITY = 30;
export const MAX_JPEG_QUALITY = 95;
