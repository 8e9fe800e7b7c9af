/**
 * What the page holds of the app's state: each section as last sent by the live feed, whether
 * the feed is connected, and the sections' renderers (sections.js's, put in by the entry, app.js),
 * so that a module re-renders a section without importing the one that renders it.
 */
/** @type {{ sections: Record<string, any>, connected: boolean }} */
export const state = { sections: {}, connected: false };

/** @type {Record<string, (value: any) => void>} */
export const render = {};

/**
 * Renders section `name` again from its last value, when one was sent.
 * @param {string} name
 */
export function rerender(name) {
  if (state.sections[name]) render[name](state.sections[name]);
}
