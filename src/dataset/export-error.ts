// The error of making a dataset: bad labelled claims, options or files, each naming what is wrong (exit 2).
import { UserError } from '../errors.js';

export class ExportError extends UserError {
  override readonly name = 'ExportError';
}
