// ES module entry: the same exports as the CommonJS `index.js` (one addon instance).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const runstart = require('./index.js');

export const {
  RouteTable,
  route,
  pickVersion,
  validRange,
  renderInstructions,
  validateIndex,
  validateIndexSync,
  indexHash,
  RunStart,
} = runstart;
export default runstart;
