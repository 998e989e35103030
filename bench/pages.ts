// Pages that measure and test the DOM caps: hostile shapes (deep, wide) and long real pages (a web-fiction chapter,
// a government report), made deterministically, so bench/long-pages.ts and the tests (test/support/hostile.ts) build
// the same bytes every time.
import { rng } from './random.js';

/** A sentence planted in the hostile pages that carry text, so a test can expect it to be found. */
export const PLANTED = 'The harbour master counted forty-two ships before the storm reached the pier.';

/** A minimal HTML page around `body`. */
export function plainPage(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
}

/** `depth` nested elements around the planted sentence (jsdom needs minutes for 10,000 and overflows its stack at 100,000). */
export function deepPage(depth: number): Buffer {
  return Buffer.from(plainPage(`${'<div><span>'.repeat(depth / 2)}${PLANTED}${'</span></div>'.repeat(depth / 2)}`));
}

/** `count` sibling elements, the planted sentence among the last (moving children of such a parent was quadratic in a DOM of arrays). */
export function widePage(count: number): Buffer {
  return Buffer.from(plainPage(`${'<div>filler item</div>'.repeat(count)}<div>${PLANTED}</div>`));
}

// ---------------------------------------------------------------------------------------------------------------
// Long real pages: not hostile, and they must keep their article view. Made deterministically (a seeded generator of
// plausible prose), so tests and bench/long-pages.ts build the same bytes every time.

/** A sentence planted in the middle of the long pages (the 10,000th of the chapter's 20,000 paragraphs). */
export const LONG_PLANTED =
  'Maren held the lantern over the chart and admitted, at last, that the northern channel had never been surveyed at all.';

const WORDS = (
  'the a and of to in that was he she it his her with for on as at by from they we you had but not what all were when there ' +
  'one said into up out could would then about them this have been more some time no like only other so over back after little ' +
  'harbour lantern river ship rope tide storm window door road village wall field stone bridge market letter morning evening ' +
  'winter summer night light shadow voice hand face eyes heart answer question silence promise reason journey captain keeper ' +
  'sister brother father mother stranger soldier merchant teacher doctor farmer miller weaver walked turned waited listened ' +
  'remembered watched carried pulled opened closed followed asked answered whispered laughed smiled nodded frowned slowly quietly ' +
  'suddenly finally carefully again already never always perhaps almost nearly across beneath beyond toward against between old ' +
  'young cold warm dark bright narrow heavy quiet long short grey green broken empty distant familiar strange careful tired'
).split(' ');
const NAMES = ['Maren', 'Tobias', 'Ilse', 'Corwin', 'Agathe', 'Pell', 'Wren', 'Dorran', 'Ysolde', 'Bram'];

/** Seeded prose: sentences of 6–24 words, some dialogue, commas, the odd name; `count` of them in a paragraph. */
function prose(random: () => number, sentences: number): string {
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 6 + Math.floor(random() * 19);
    const words: string[] = [];
    for (let w = 0; w < n; w++) {
      let word =
        random() < 0.06 ? NAMES[Math.floor(random() * NAMES.length)]! : WORDS[Math.floor(random() * WORDS.length)]!;
      if (w > 2 && w < n - 2 && random() < 0.08) word += ',';
      words.push(word);
    }
    let sentence = words.join(' ');
    sentence = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}${random() < 0.1 ? '?' : '.'}`;
    out.push(
      random() < 0.15 ? `\u201c${sentence}\u201d ${NAMES[Math.floor(random() * NAMES.length)]} said.` : sentence,
    );
  }
  return out.join(' ');
}

/**
 * A long web-fiction chapter as serial-fiction sites serve one: site chrome, then one <div> holding every
 * paragraph of the chapter (20,000 by default, ~3 MB), then the comments. LONG_PLANTED is the middle paragraph.
 * `style` 'p' gives <p> paragraphs; 'br' gives text runs separated by <br><br> (the other common way).
 */
export function longChapterPage(paragraphs = 20_000, style: 'p' | 'br' = 'p', seed = 7): string {
  const random = rng(seed);
  const paras: string[] = [];
  for (let i = 0; i < paragraphs; i++) {
    const text = i === paragraphs >> 1 ? LONG_PLANTED : prose(random, 1 + Math.floor(random() * 3));
    paras.push(style === 'p' ? `<p>${text}</p>` : `${text}<br>\n<br>\n`);
    if (style === 'p' && random() < 0.02) paras.push('<p>&nbsp;</p>');
  }
  const comments = Array.from(
    { length: 40 },
    (_, i) =>
      `<div class="comment"><div class="comment-author"><a href="/profile/${i}">reader${i}</a></div><div class="comment-body"><p>${prose(random, 2)}</p></div></div>`,
  ).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Chapter 212: The Northern Channel | The Cartographer's Daughter</title>
<link rel="stylesheet" href="/css/reader.css"><script src="/js/reader.js"></script></head>
<body class="chapter-page">
<header class="navbar"><a class="brand" href="/">Serial Shelf</a><nav><a href="/browse">Browse</a> <a href="/latest">Latest updates</a> <a href="/forums">Forums</a> <a href="/login">Log in</a></nav></header>
<div class="fiction-header"><h1>Chapter 212: The Northern Channel</h1><h2>The Cartographer's Daughter, by <a href="/author/ilse">Ilse Varr</a></h2></div>
<div class="nav-buttons"><a href="/chapter/211">Previous chapter</a> <a href="/fiction/88">Index</a> <a href="/chapter/213">Next chapter</a></div>
<div class="chapter-inner chapter-content">
${paras.join('\n')}
</div>
<div class="author-note"><p>Thank you for reading! The next chapter comes out on Friday.</p></div>
<div class="nav-buttons"><a href="/chapter/211">Previous chapter</a> <a href="/fiction/88">Index</a> <a href="/chapter/213">Next chapter</a></div>
<section class="comments"><h3>Comments (40)</h3>
${comments}
</section>
<footer><p>&copy; Serial Shelf. <a href="/terms">Terms</a> <a href="/privacy">Privacy</a></p></footer>
</body></html>
`;
}

/**
 * A long government report in HTML, as parliaments and agencies publish them: a table of contents, chapters of
 * nested sections with headings, paragraphs citing footnotes, statistical tables, and the footnotes in one list at
 * the end (`chapters` of 8 sections × 3 subsections; the default is ~8 MB, ~140,000 elements, 9,000 footnotes).
 */
export function longReportPage(chapters = 24, seed = 11): string {
  const random = rng(seed);
  const middle = Math.ceil(chapters / 2);
  let footnote = 0;
  const notes: string[] = [];
  const cite = () => {
    footnote++;
    notes.push(
      `<li id="fn${footnote}"><p>${prose(random, 1 + Math.floor(random() * 2))} <a href="#fnref${footnote}" class="backref">&#8617;</a></p></li>`,
    );
    return `<sup id="fnref${footnote}"><a href="#fn${footnote}">${footnote}</a></sup>`;
  };
  const para = () =>
    `<p>${prose(random, 2 + Math.floor(random() * 4))}${random() < 0.6 ? cite() : ''} ${prose(random, 1 + Math.floor(random() * 3))}${random() < 0.3 ? cite() : ''}</p>`;
  const table = (id: string) => {
    const rows = 20 + Math.floor(random() * 40);
    const body = Array.from(
      { length: rows },
      (_, r) =>
        `<tr><th scope="row">${WORDS[(r * 7) % WORDS.length]} ${r + 1}</th>${Array.from({ length: 5 }, () => `<td>${(random() * 10000).toFixed(1)}</td>`).join('')}</tr>`,
    ).join('\n');
    return `<table class="data" id="${id}"><caption>Table ${id}: ${prose(random, 1)}</caption><thead><tr><th>Region</th><th>2019</th><th>2020</th><th>2021</th><th>2022</th><th>2023</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
  };
  const toc: string[] = [];
  const body: string[] = [];
  for (let c = 1; c <= chapters; c++) {
    toc.push(
      `<li><a href="#ch${c}">Chapter ${c}</a><ol>${Array.from({ length: 8 }, (_, s) => `<li><a href="#s${c}-${s + 1}">Section ${c}.${s + 1}</a></li>`).join('')}</ol></li>`,
    );
    const sections: string[] = [];
    for (let s = 1; s <= 8; s++) {
      const subs: string[] = [];
      for (let u = 1; u <= 3; u++) {
        const paras = Array.from({ length: 8 + Math.floor(random() * 10) }, para);
        if (c === middle && s === 4 && u === 2) paras.splice(paras.length >> 1, 0, `<p>${LONG_PLANTED}${cite()}</p>`);
        if (random() < 0.5) paras.splice(Math.floor(random() * paras.length), 0, table(`${c}.${s}.${u}`));
        if (random() < 0.3)
          paras.push(
            `<ul>${Array.from({ length: 3 + Math.floor(random() * 6) }, () => `<li>${prose(random, 1)}</li>`).join('')}</ul>`,
          );
        subs.push(
          `<section id="s${c}-${s}-${u}"><h4>${c}.${s}.${u} ${prose(random, 1)}</h4>\n${paras.join('\n')}</section>`,
        );
      }
      sections.push(`<section id="s${c}-${s}"><h3>${c}.${s} ${prose(random, 1)}</h3>\n${subs.join('\n')}</section>`);
    }
    body.push(
      `<section class="chapter" id="ch${c}"><h2>Chapter ${c}. ${prose(random, 1)}</h2>\n${sections.join('\n')}</section>`,
    );
  }
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Annual Report on Regional Infrastructure, Volume II</title>
<link rel="stylesheet" href="/assets/report.css"></head>
<body>
<div class="gov-header"><a href="/">Department of Regional Infrastructure</a><nav><a href="/publications">Publications</a> <a href="/data">Data</a> <a href="/contact">Contact</a></nav></div>
<main id="content"><article class="report">
<h1>Annual Report on Regional Infrastructure, Volume II</h1>
<nav class="toc"><h2>Contents</h2><ol>${toc.join('\n')}</ol></nav>
${body.join('\n')}
<section class="footnotes"><h2>Notes</h2><ol>
${notes.join('\n')}
</ol></section>
</article></main>
<footer class="gov-footer"><p>Published under the Open Government Licence.</p></footer>
</body></html>
`;
}
