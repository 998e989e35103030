// A page's markup signals as the pipeline reads them, for tests: from the built tree (a page under the DOM caps, the
// worker's path) or from the streaming pass's events (a page past them, an error page).
import { buildDocument } from '../../src/extract/lightdom/index.js';
import { MarkupReader, readTree, type MarkupSignals } from '../../src/extract/markup.js';
import { DOM_LIMITS } from '../../src/extract/html.js';
import { streamedText } from '../../src/extract/streamed-text.js';

/** The signals of `html` whose normalized text is `textLength` long, read from its tree or its streaming pass. */
export function markupSignals(html: string, textLength: number, from: 'tree' | 'tokens' = 'tree'): MarkupSignals {
  const reader = new MarkupReader();
  if (from === 'tokens') {
    streamedText(html, reader);
    return reader.signals(textLength);
  }
  const { doc } = buildDocument(html, DOM_LIMITS);
  if (!doc) throw new Error('the page is past a DOM cap: read it from its tokens');
  readTree(doc, reader);
  return reader.signals(textLength);
}
