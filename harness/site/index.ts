/** Stage 7, the results site: many reports as static pages (implementations by draft, a page per implementation and per rule, history). */
export { buildSite, SiteOutputError, writeSite, type Site, type SiteFile } from './build-site.ts';
export { readSiteInputs, SiteInputError, type SiteEntry, type SiteInputs } from './entries.ts';
