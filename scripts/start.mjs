// `npm start`: brings dist/ up to date if the source moved on, then runs the server in this same
// process (a second Node start-up would cost more than the check).
import { pathToFileURL } from 'node:url';
import { BUNDLE } from './build-if-stale.mjs';

await import(pathToFileURL(BUNDLE).href);
