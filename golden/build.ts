// Deterministic generator of the golden benchmark.
//
//   npx tsc -p tsconfig.json && node dist/golden/build.js
//
// Reads the source documents in golden/sources/ (copied once from
// ../shared/realworld/ when missing) and the readable SPEC below, checks every
// fact each label rests on, and writes
//   golden/routes.json             route table of the golden server (golden/server.ts)
//   golden/labelled.jsonl          every claim with its label and the rule it follows from
//   golden/tasks/<task>/...        Harbor tasks (design §6)
//
//   node dist/golden/build.js --out DIR [--with-skill] [--with-mcp]
// writes only the task folders, into DIR, in the variant asked for (the skill shipped in each task, quotecheck's
// MCP server declared in each task.toml: the same templates `quotecheck export --with-skill --with-mcp` uses);
// golden/ itself is left as it is.
//
// Labels follow design §3 and never come from running quotecheck:
//   verbatim  iff normalize(quote) is a substring of normalize(source text), where the
//             source text is pdftotext's output for PDFs and, for HTML, the page's
//             visible text (or Readability's article view of it).
// Every claim names the rule it uses; the builder asserts the facts behind the rule
// (the span is inside one element / text node; the substituted word occurs nowhere in
// the source; no 5-word shingle of a fabricated quote occurs; ...) and stops with an
// error when one does not hold. golden/check.ts re-verifies the labels independently.

import fs from 'node:fs';
import path from 'node:path';
import { collapse, copyMissingSources, fail, findElement, findPdfSpan, findTextNode, H1, H2, H3, type Host, HTML_UTF8, htmlText, isPdf as isPdfBytes, isShown, lineBreaks, normalize, PDF, pdftotext, reEsc, U, wordRe, writeFile } from './lib/builder.js';
import type { Labelled } from './lib/builder.js';
import { isMain } from './lib/main.js';
import { buildDrift, DRIFT_TASK } from './drift/build.js';
import { GOLDEN_PORT, goldenDir, type Route } from './server.js';
import { parseArgs } from 'node:util';
import { bundledSkillDir, environmentDockerfile, installSkill, instruction, solveScript, taskToml, testScript, variantTags, variantTomlOptions, type TaskVariant } from '../src/harbor/templates.js';

export { normalize };

// Sources: the real documents (golden/sources.ts), shared with the diagnosis and drift builders.
import { SOURCES, type SourceDoc, type SrcKey } from './sources.js';

export { SOURCES, type SrcKey };

// ---------------------------------------------------------------------------
// Spec types

/** A route of the golden server. `src` serves a source document; the rest is Route. */
interface RouteSpec extends Omit<Route, 'file' | 'handler' | 'host'> {
  host: Host;
  src?: SrcKey;
  /** words for the rule text, e.g. "3 redirects" */
  note?: string;
}

type Variant = 'curly' | 'straight' | 'upper' | 'lower' | 'whitespace' | 'nfd';

/** How the quote of a claim is made, and so which rule gives its label. */
type QuoteSpec =
  /** verbatim: a span of the source text */
  | { span: string }
  /** verbatim: a span written differently in ways that normalization undoes */
  | { span: string; as: Variant | string; how: string }
  /** no_match: one word of a span replaced by a word that occurs nowhere in the source */
  | { span: string; swap: [string, string] }
  /** no_match: a span followed by words the source does not have after it */
  | { span: string; tail: string }
  /** no_match: a span with words dropped from its middle (no ellipsis) */
  | { span: string; drop: string }
  /** no_match: two spans from different places joined with " ... " */
  | { splice: [string, string] }
  /** no_match: a made-up sentence; none of its 5-word shingles occurs in the source */
  | { fabricated: string }
  /** no_match: `near` is in the source, the quote (which differs as `why` says) is not */
  | { absent: string; near: string; why: string }
  /** no_match: the source yields no text (failed fetch, no text layer, password) */
  | { quote: string; why: string };

interface ClaimSpec {
  id: string;
  url: string;
  claim: string;
  q: QuoteSpec;
  /** 'whatwg': the label holds under the Encoding Standard's windows-1252 only (bytes 0x80-0x9F) */
  decoding?: 'whatwg';
}

interface TaskSpec {
  name: string;
  difficulty: 'easy' | 'medium' | 'hard';
  tags: string[];
  /** one paragraph for instruction.md and the README */
  about: string;
  routes: RouteSpec[];
  claims: ClaimSpec[];
}

const HTML_NO_CHARSET = { 'content-type': 'text/html' };

// ---------------------------------------------------------------------------
// THE SPEC

const TASKS: TaskSpec[] = [
  {
    name: 'news-wire',
    difficulty: 'easy',
    tags: ['html', 'news', 'word-substitution', 'fabrication'],
    about:
      'Wire-service and fact-check articles (BBC, Reuters, PolitiFact) served as UTF-8 HTML. ' +
      'Quotes are exact sentences, sentences with one word substituted, or invented sentences.',
    routes: [
      { host: H1, path: '/news-wire/world-europe-assange-sweden.html', src: 'bbc', headers: HTML_UTF8 },
      { host: H1, path: '/news-wire/markets-global-oil.html', src: 'reuters', headers: HTML_UTF8 },
      { host: H1, path: '/news-wire/tariffs-who-pays.html', src: 'politifact', headers: HTML_UTF8 },
    ],
    claims: [
      {
        id: 'news-01', url: U(H1, '/news-wire/world-europe-assange-sweden.html'),
        claim: 'The BBC reported that Sweden dropped its rape investigation into Julian Assange.',
        q: { span: 'Prosecutors in Sweden have dropped an investigation into a rape allegation made against Wikileaks co-founder Julian Assange in 2010.' },
      },
      {
        id: 'news-02', url: U(H1, '/news-wire/world-europe-assange-sweden.html'),
        claim: 'The BBC said Assange was expelled from the Ecuadorean embassy and jailed for 50 weeks.',
        q: { span: 'The 48-year-old Australian was evicted in April and sentenced to 50 weeks in jail for breaching his bail conditions.', swap: ['evicted', 'expelled'] },
      },
      {
        id: 'news-03', url: U(H1, '/news-wire/world-europe-assange-sweden.html'),
        claim: 'Swedish prosecutors explained that the evidence had weakened over time.',
        q: { span: 'the evidence has weakened considerably due to the long period of time that has elapsed since the events in question' },
      },
      {
        id: 'news-04', url: U(H1, '/news-wire/world-europe-assange-sweden.html'),
        claim: 'The BBC reported that prosecutors would reopen the case if new witnesses appeared.',
        q: { fabricated: 'Swedish prosecutors said they would gladly revisit the matter should fresh witnesses come forward next spring.' },
      },
      {
        id: 'news-05', url: U(H1, '/news-wire/markets-global-oil.html'),
        claim: 'Reuters linked the fall in oil prices to Russia’s stance on output cuts.',
        q: { span: 'Oil fell after sources told Reuters that Russia is unlikely to agree to cut its oil output further at a meeting with fellow exporters next month.' },
      },
      {
        id: 'news-06', url: U(H1, '/news-wire/markets-global-oil.html'),
        claim: 'Reuters cited persistent uncertainty over the US-China trade war.',
        q: { span: 'Traders cited the lingering uncertainty over whether the United States and China could agree to end a near 1-1/2 year trade war', swap: ['lingering', 'persistent'] },
      },
      {
        id: 'news-07', url: U(H1, '/news-wire/markets-global-oil.html'),
        claim: 'Reuters said hopes of a trade truce lifted European stocks to a four-year high.',
        q: { span: 'Hopes of a trade truce earlier in the day drove European stocks to a four-year high and a measure of world stock markets to their highest in nearly two years' },
      },
      {
        id: 'news-08', url: U(H1, '/news-wire/markets-global-oil.html'),
        claim: 'Reuters tied falling oil prices to oversupply.',
        q: { splice: ['Oil prices fell sharply on Tuesday on oversupply concerns', 'combined with some worries over global demand next year, sent prices lower.'] },
      },
      {
        id: 'news-09', url: U(H1, '/news-wire/tariffs-who-pays.html'),
        claim: 'PolitiFact wrote that most economists see consumers as the main victims of tariffs.',
        q: { span: 'Most mainstream economists, however, argue that consumers are the primary victims of tariffs.' },
      },
      {
        id: 'news-10', url: U(H1, '/news-wire/tariffs-who-pays.html'),
        claim: 'PolitiFact explained that overseas exporters do not pay US tariffs.',
        q: { span: 'When the United States slaps tariffs on goods, it isn’t foreign exporters that make the payment.', swap: ['foreign', 'overseas'] },
      },
      {
        id: 'news-11', url: U(H1, '/news-wire/tariffs-who-pays.html'),
        claim: 'PolitiFact noted that lower-income Americans spend more of their income on goods.',
        q: { span: 'Studies have shown that lower-income Americans tend to purchase a larger fraction of their income on goods.' },
      },
      {
        id: 'news-12', url: U(H1, '/news-wire/tariffs-who-pays.html'),
        claim: 'PolitiFact concluded that tariffs lowered prices for American families.',
        q: { fabricated: 'Tariffs have quietly trimmed household grocery bills by several hundred dollars every single year, economists agreed.' },
      },
    ],
  },
  {
    name: 'science-desk',
    difficulty: 'easy',
    tags: ['html', 'science', 'several-hosts', 'same-url'],
    about:
      'Science and space news (Smithsonian, Al Jazeera, Phys.org, ScienceAlert) on a second host; several claims cite ' +
      'the same URL. Quotes are exact spans, one-word substitutions, splices of two paragraphs, invented sentences and ' +
      'spans that run on past the end of the source sentence.',
    routes: [
      { host: H2, path: '/science/plague-cases-china.html', src: 'smithsonian', headers: HTML_UTF8 },
      { host: H2, path: '/science/nasa-moon-landers.html', src: 'aljazeera', headers: HTML_NO_CHARSET },
      { host: H2, path: '/science/esa-human-hibernation.html', src: 'physorg', headers: HTML_UTF8 },
      { host: H2, path: '/science/titan-geological-map.html', src: 'sciencealert', headers: HTML_UTF8 },
    ],
    claims: [
      {
        id: 'sci-01', url: U(H2, '/science/plague-cases-china.html'),
        claim: 'Smithsonian described pneumonic plague as highly contagious.',
        q: { span: 'It is highly contagious, spreading from person to person via infected respiratory droplets.' },
      },
      {
        id: 'sci-02', url: U(H2, '/science/plague-cases-china.html'),
        claim: 'Smithsonian reported nationwide fear after three plague cases in China.',
        q: { span: 'Three cases of plague have been diagnosed in China, sparking widespread fears about the spread of the disease', swap: ['widespread', 'nationwide'] },
      },
      {
        id: 'sci-03', url: U(H2, '/science/plague-cases-china.html'),
        claim: 'Smithsonian noted that recovery rates are high with prompt antibiotics.',
        q: { span: 'But recovery rates are high if it is detected and treated with antibiotics within 24 hours of the onset of symptoms' },
      },
      {
        id: 'sci-04', url: U(H2, '/science/nasa-moon-landers.html'),
        claim: 'Al Jazeera wrote that NASA sees evidence of the ingredients for life on Europa.',
        q: { span: 'NASA believes this discovery is further evidence that the essential ingredients for life - chemical elements, sources of energy and liquid water - are on Europa.' },
      },
      {
        id: 'sci-05', url: U(H2, '/science/nasa-moon-landers.html'),
        claim: 'Al Jazeera reported that the lander companies want to carry tourists.',
        q: { span: 'While payloads bring to mind images of cargo, the companies said they wanted to expand their services to include passengers.', swap: ['passengers', 'tourists'] },
      },
      {
        id: 'sci-06', url: U(H2, '/science/esa-human-hibernation.html'),
        claim: 'Phys.org reported that hibernation could cut spacecraft mass by a third.',
        q: { span: 'The study found the spacecraft mass could be reduced by a third by removing the crew quarters with a similar reduction in consumables' },
      },
      {
        id: 'sci-07', url: U(H2, '/science/esa-human-hibernation.html'),
        claim: 'Phys.org said ESA will test hibernation pods on the ISS.',
        q: { fabricated: 'ESA intends to trial the sleeping pods aboard the orbiting laboratory before astronauts ever attempt a Mars voyage.' },
      },
      {
        id: 'sci-08', url: U(H2, '/science/esa-human-hibernation.html'),
        claim: 'Phys.org quoted the CDF team on adjusting the spacecraft architecture.',
        q: { splice: ['We worked on adjusting the architecture of the spacecraft, its logistics, protection against radiation', 'Hibernation would take place in small individual pods'] },
      },
      {
        id: 'sci-09', url: U(H2, '/science/titan-geological-map.html'),
        claim: 'ScienceAlert reported that Titan’s equator is drier than its poles.',
        q: { span: 'Rainfall occurs everywhere on Titan, but the equatorial regions are drier than the poles' },
      },
      {
        id: 'sci-10', url: U(H2, '/science/titan-geological-map.html'),
        claim: 'ScienceAlert said the Titan map used sonar data from Cassini.',
        q: { span: 'The map was based on radar, infrared and other data collected by NASA\'s Cassini spacecraft', swap: ['radar', 'sonar'] },
      },
      {
        id: 'sci-11', url: U(H2, '/science/titan-geological-map.html'),
        claim: 'ScienceAlert said organic materials play a leading role on Titan.',
        q: { span: 'Organic materials - carbon-based compounds critical for fostering living organisms - play a leading role on Titan.' },
      },
      {
        id: 'sci-12', url: U(H2, '/science/titan-geological-map.html'),
        claim: 'ScienceAlert said the poles of Titan are covered by seas.',
        q: { span: 'Rainfall occurs everywhere on Titan, but the equatorial regions are drier than the poles', tail: ', which are covered by vast hydrocarbon seas' },
      },
    ],
  },
  {
    name: 'quote-normalization',
    difficulty: 'medium',
    tags: ['html', 'normalization', 'unicode', 'quotes', 'dashes', 'whitespace'],
    about:
      'Quotes that differ from the page only in ways the normalization of design §3 undoes (curly/straight quotes, ' +
      'dashes, case, whitespace runs, NFKC compatibility characters, an ellipsis character), and traps it does not ' +
      'undo (soft hyphens, zero-width characters, "--" for a dash, a dash without the spaces the page has).',
    routes: [
      { host: H1, path: '/norm/bbc-assange.html', src: 'bbc', headers: HTML_UTF8 },
      { host: H1, path: '/norm/reuters-oil.html', src: 'reuters', headers: HTML_UTF8 },
      { host: H1, path: '/norm/aljazeera-nasa.html', src: 'aljazeera', headers: HTML_UTF8 },
      { host: H1, path: '/norm/physorg-hibernation.html', src: 'physorg', headers: HTML_UTF8 },
      { host: H1, path: '/norm/politifact-tariffs.html', src: 'politifact', headers: HTML_UTF8 },
      { host: H1, path: '/norm/sciencealert-titan.html', src: 'sciencealert', headers: HTML_UTF8 },
      { host: H1, path: '/norm/givewell-incubator.html', src: 'givewell', headers: HTML_UTF8 },
      { host: H1, path: '/norm/macrumors-iphone.html', src: 'macrumors', headers: HTML_UTF8 },
    ],
    claims: [
      {
        id: 'norm-01', url: U(H1, '/norm/bbc-assange.html'),
        claim: 'The BBC quoted the prosecutor’s decision to discontinue the investigation.',
        q: { span: 'Deputy Director of Public Prosecution Eva-Marie Persson took the decision to "discontinue the investigation regarding Julian Assange"', as: 'curly', how: 'curly quotes for the page\'s straight quotes (normalization step 2)' },
      },
      {
        id: 'norm-02', url: U(H1, '/norm/reuters-oil.html'),
        claim: 'Reuters quoted a Commerzbank analyst on Russia’s output cuts.',
        q: { span: '“Moreover, Russia also failed to fulfill its agreed cuts in November so far,” Commerzbank analyst Carsten Fritsch said.', as: 'straight', how: 'straight quotes for the page\'s curly quotes (normalization step 2)' },
      },
      {
        id: 'norm-03', url: U(H1, '/norm/reuters-oil.html'),
        claim: 'Reuters reported that Norway’s oil production beat forecasts.',
        q: { span: 'Separately, Norway’s October oil production beat forecasts and the potential oversupply', as: 'upper', how: 'upper case and a straight apostrophe for the page\'s ’ (steps 2 and 5)' },
      },
      {
        id: 'norm-04', url: U(H1, '/norm/aljazeera-nasa.html'),
        claim: 'Al Jazeera listed the ingredients for life said to be on Europa.',
        q: { span: 'the essential ingredients for life - chemical elements, sources of energy and liquid water - are on Europa', as: 'the essential ingredients for life – chemical elements, sources of energy and liquid water — are on Europa', how: 'an en dash and an em dash for the page\'s spaced hyphens (step 3)' },
      },
      {
        id: 'norm-05', url: U(H1, '/norm/aljazeera-nasa.html'),
        claim: 'Al Jazeera named Blue Origin among the commercial upstarts.',
        q: { absent: 'the commercial space industry’s upstarts—Amazon founder Jeff Bezos’s Blue Origin', near: 'the commercial space industry’s upstarts - Amazon founder Jeff Bezos’s Blue Origin', why: 'an em dash without spaces where the page has " - ": step 3 makes it "-" but keeps no spaces, so "upstarts-amazon" is not "upstarts - amazon"' },
      },
      {
        id: 'norm-06', url: U(H1, '/norm/physorg-hibernation.html'),
        claim: 'Phys.org described ESA’s Concurrent Design Facility.',
        q: { absent: 'ESA\'s Concurrent Design Facility--a multimedia facility enabling expert teams to perform initial evaluations', near: 'ESA\'s Concurrent Design Facility—a multimedia facility enabling expert teams to perform initial evaluations', why: 'two hyphens "--" for the page\'s em dash: step 3 maps the em dash to one "-", and "--" stays "--"' },
      },
      {
        id: 'norm-07', url: U(H1, '/norm/physorg-hibernation.html'),
        claim: 'Phys.org said the hibernating cruise phase would end with a recuperation period.',
        q: { span: 'The hibernating cruise phase would end with a 21 day recuperation period—although based on the experience of animal hibernation', as: 'The hibernating cruise phase would end with a 21 day recuperation period\u2012although based on the experience of animal hibernation', how: 'a figure dash U+2012 for the page\'s em dash U+2014 (both become "-" in step 3)' },
      },
      {
        id: 'norm-08', url: U(H1, '/norm/politifact-tariffs.html'),
        claim: 'PolitiFact said customs payment is due within 10 days.',
        q: { span: 'Customs and Border Protection typically requires payment within 10 days of their shipments clearing customs, Reuters reported.', as: 'whitespace', how: 'newlines, a tab, a no-break space and doubled spaces between words and around the quote (step 4)' },
      },
      {
        id: 'norm-09', url: U(H1, '/norm/sciencealert-titan.html'),
        claim: 'ScienceAlert reported the unveiling of the first global geological map of Titan.',
        q: { span: 'Scientists on Monday unveiled the first global geological map of Saturn\'s moon Titan', as: 'Scientists on Monday unveiled the first global geological map of Saturn\'s moon Ｔｉｔａｎ', how: 'fullwidth letters Ｔｉｔａｎ, which NFKC maps to ASCII (step 1)' },
      },
      {
        id: 'norm-10', url: U(H1, '/norm/politifact-tariffs.html'),
        claim: 'PolitiFact said lower-income Americans could feel the pinch more than affluent ones.',
        q: { span: 'That means they could feel the pinch worse than more affluent Americans do.', as: 'That means they could feel the pinch worse than more a\uFB04uent Americans do.', how: 'the ligature U+FB04 "ﬄ" for "ffl", which NFKC expands (step 1)' },
      },
      {
        id: 'norm-11', url: U(H1, '/norm/givewell-incubator.html'),
        claim: 'GiveWell wrote that the grant funds an incubator at Evidence Action Beta.',
        q: { span: 'This grant will fund Evidence Action Beta to create … [an] incubator', as: 'This grant will fund Evidence Action Beta to create ... [an] incubator', how: 'three full stops for the page\'s ellipsis character U+2026, which NFKC maps to "..." (step 1)' },
      },
      {
        id: 'norm-12', url: U(H1, '/norm/givewell-incubator.html'),
        claim: 'GiveWell said the grant was part of its Incubation Grants program.',
        q: { absent: 'This grant was made as part of GiveWell’s Incubation Grants program\u2026', near: 'This grant was made as part of GiveWell’s Incubation Grants program, which aims', why: 'the quote ends with an ellipsis character U+2026 (NFKC: "...") where the page continues ", which aims"; normalization keeps ellipses' },
      },
      {
        id: 'norm-13', url: U(H1, '/norm/bbc-assange.html'),
        claim: 'The BBC said Assange faces a charge of conspiracy to commit computer intrusion.',
        q: { absent: 'Australian-born Assange faces a charge of con\u00adspir\u00adacy to commit computer intrusion in the US.', near: 'Australian-born Assange faces a charge of conspiracy to commit computer intrusion in the US.', why: 'soft hyphens U+00AD inside "conspiracy": design §3 leaves soft hyphens in place, and the page has none' },
      },
      {
        id: 'norm-14', url: U(H1, '/norm/bbc-assange.html'),
        claim: 'The BBC reported that Assange is held at Belmarsh prison.',
        q: { absent: 'He is currently being held at Bel\u200bmarsh prison in London.', near: 'He is currently being held at Belmarsh prison in London.', why: 'a zero-width space U+200B inside "Belmarsh": design §3 leaves zero-width characters in place' },
      },
      {
        id: 'norm-15', url: U(H1, '/norm/macrumors-iphone.html'),
        claim: 'MacRumors said night mode uses the wide-angle camera of the iPhone 11.',
        q: { absent: 'takes advantage of the new wide-angle camera that\'s in the iPhone 11 and 11 Pro models', near: 'takes advantage of the new wide-angle camera that\'s in the \u200ciPhone 11\u200c and 11 Pro models', why: 'the page writes "\u200ciPhone 11\u200c" with zero-width non-joiners U+200C around it (invisible in a browser); normalization keeps them, so the plain quote does not occur' },
      },
      {
        id: 'norm-16', url: U(H1, '/norm/macrumors-iphone.html'),
        claim: 'MacRumors said the iPhone 11 takes a step forward in cameras and battery life.',
        q: { span: 'At first glance, the two devices have quite a few similarities, but the iPhone 11 takes a step forward in regards to cameras, battery life, and more.' },
      },
    ],
  },
];

// (the remaining tasks are appended below)
TASKS.push(
  {
    name: 'longform-splices',
    difficulty: 'medium',
    tags: ['html', 'long-form', 'ellipsis', 'splice', 'same-url', 'several-hosts'],
    about:
      'Long magazine articles (Quanta Magazine, The Space Review) on a third host, several claims per URL. ' +
      'Long exact spans sit next to ellipsis splices of two paragraphs, quotes with words silently dropped, ' +
      'quotes that run on past the source sentence, substitutions and invented sentences.',
    routes: [
      { host: H3, path: '/longform/tuft-cells-taste-receptors.html', src: 'quanta', headers: HTML_NO_CHARSET },
      { host: H3, path: '/longform/sls-congress-debate.html', src: 'spacereview', headers: HTML_UTF8 },
    ],
    claims: [
      {
        id: 'long-01', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta asked why a cell covered with taste receptors would be in the lungs.',
        q: { span: 'But what would a cell covered with taste receptors be doing in the lungs? And why did it only appear there in response to a severe bout of influenza?' },
      },
      {
        id: 'long-02', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta described the tuft cell Herbert found in the lungs of mice.',
        q: { splice: ['He had found a strange-looking cell with a distinctive thatch of projections like dreadlocks atop a pear-shaped body', 'Chemosensory receptors help us make this distinction.'] },
      },
      {
        id: 'long-03', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta said the genes for olfactory receptors were discovered in 1991.',
        q: { span: 'scientists didn’t discover the big family of genes that encode for olfactory receptors until 1991, with the ones for taste receptors following in 2000.' },
      },
      {
        id: 'long-04', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta reported that tuft cells cure influenza in mice.',
        q: { fabricated: 'Injecting extra tuft cells cured every infected mouse within a week, the Pennsylvania group found.' },
      },
      {
        id: 'long-05', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta wrote that tuft cells are a hub for the body’s defenses.',
        q: { span: 'it is gradually becoming clear that tuft cells are an important hub for the body’s defenses precisely because they can communicate with the immune system', drop: ' precisely' },
      },
      {
        id: 'long-06', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta quoted Pluznick’s surprise at olfactory receptors in the kidney.',
        q: { span: '“Olfactory receptors in the kidney? Come on.”' },
      },
      {
        id: 'long-07', url: U(H3, '/longform/tuft-cells-taste-receptors.html'),
        claim: 'Quanta said the olfactory receptor discovery earned Axel and Buck a Nobel Prize.',
        q: { span: '(The olfactory receptor discovery brought the researchers Richard Axel and Linda Buck a Nobel Prize in 2004.)', tail: ' in Physiology or Medicine' },
      },
      {
        id: 'long-08', url: U(H3, '/longform/sls-congress-debate.html'),
        claim: 'A congressman warned against switching horses midstream on SLS.',
        q: { span: '“While I share the frustration and delays to the SLS program, switching horses midstream is not a wise move at this point,” he continued.' },
      },
      {
        id: 'long-09', url: U(H3, '/longform/sls-congress-debate.html'),
        claim: 'The Space Review reported criticism that NASA relies too much on commercial options.',
        q: { span: 'Some members of Congress have suggested that NASA isn’t using SLS enough: that is, NASA is relying too much on those commercial options in its current exploration architecture', swap: ['commercial', 'private'] },
      },
      {
        id: 'long-10', url: U(H3, '/longform/sls-congress-debate.html'),
        claim: 'Stafford said eight launches cut the probability of success to about 50 percent.',
        q: { span: '“But with eight launches, I’ll have to go with Mr. Cooke: your probability of success goes down to about 50 percent,” he concluded.' },
      },
      {
        id: 'long-11', url: U(H3, '/longform/sls-congress-debate.html'),
        claim: 'Stafford stressed the need for a big booster.',
        q: { splice: ['“If you don’t have a big booster, you’re not going to make it,” he said.', 'He said a lunar landing could be achieved with two SLS missions'] },
      },
      {
        id: 'long-12', url: U(H3, '/longform/sls-congress-debate.html'),
        claim: 'The Space Review described NASA’s architecture for the lunar Gateway.',
        q: { span: 'Under NASA’s current architecture, elements of the lunar Gateway would be launched commercially, as well as logistics spacecraft to support the Gateway.' },
      },
    ],
  },
  {
    name: 'pdf-papers',
    difficulty: 'hard',
    tags: ['pdf', 'pdftotext', 'two-column', 'hyphenation', 'ligatures'],
    about:
      'Two-column research papers (S2ORC at ACL 2020, TraceMonkey at PLDI 2009, an IEEE preprint full of ligatures). ' +
      'The source text is pdftotext\'s output: spans that cross line breaks are verbatim, while quotes that repair its ' +
      'artifacts (words it joined at a line-end hyphen, a hyphen it kept at a column break, small caps split into two ' +
      'words, a copyright box in the middle of a sentence) are not.',
    routes: [
      { host: H1, path: '/papers/2020.acl-main.447.pdf', src: 's2orc', headers: PDF },
      { host: H2, path: '/papers/pldi09-tracemonkey.pdf', src: 'tracemonkey', headers: PDF },
      { host: H1, path: '/papers/individual-differential-privacy.pdf', src: 'idp', headers: PDF },
    ],
    claims: [
      {
        id: 'paper-01', url: U(H1, '/papers/2020.acl-main.447.pdf'),
        claim: 'The S2ORC paper calls academic papers an increasingly important domain for NLP.',
        q: { span: 'Academic papers are an increasingly important textual domain for natural language processing (NLP) research.' },
      },
      {
        id: 'paper-02', url: U(H1, '/papers/2020.acl-main.447.pdf'),
        claim: 'The S2ORC abstract says full text is annotated with automatically detected mentions.',
        q: { absent: 'Full text is annotated with automatically-detected inline mentions of citations, figures, and tables', near: 'Full text is annotated with automaticallydetected inline mentions of citations, figures, and tables', why: 'pdftotext joined the line-end hyphenation "automatically-/detected" into "automaticallydetected"; the quote has the hyphen back' },
      },
      {
        id: 'paper-03', url: U(H1, '/papers/2020.acl-main.447.pdf'),
        claim: 'The S2ORC abstract describes the annotation of inline mentions.',
        q: { span: 'Full text is annotated with automaticallydetected inline mentions of citations, figures, and tables, each linked to their corresponding paper objects.' },
      },
      {
        id: 'paper-04', url: U(H1, '/papers/2020.acl-main.447.pdf'),
        claim: 'The S2ORC paper lists characteristics of academic papers.',
        q: { span: 'academic papers exhibit many interesting characteristics – thousands of words organized into sections, objects such as tables, figures and equations', as: 'academic papers exhibit many interesting characteristics - thousands of words organized into sections, objects such as tables, figures and equations', how: 'a hyphen for pdftotext\'s en dash (step 3); the span crosses line breaks' },
      },
      {
        id: 'paper-05', url: U(H1, '/papers/2020.acl-main.447.pdf'),
        claim: 'The S2ORC paper says citation detection depends on GROBID.',
        q: { absent: 'Inline citation detection and bibliography parsing are dependent on GROBID (Lopez, 2009).', near: 'Inline citation detection and bibliography parsing are dependent on G ROBID (Lopez, 2009).', why: 'the paper sets GROBID in small caps and pdftotext outputs "G ROBID"' },
      },
      {
        id: 'paper-06', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey abstract explains why dynamic languages are hard to compile.',
        q: { span: 'Since no concrete type information is available, traditional compilers need to emit generic code that can handle all possible type combinations at runtime.' },
      },
      {
        id: 'paper-07', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper explains object shapes.',
        q: { absent: 'In TraceMonkey, objects’ representations are assigned an integer key called the object shape.', near: 'In TraceMonkey, objects’ rep- resentations are assigned an integer key called the object shape.', why: 'the word is hyphenated across a column break and pdftotext keeps "rep-" and "resentations" apart' },
      },
      {
        id: 'paper-08', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper calls JavaScript the standard for client-side programming.',
        q: { absent: 'JavaScript, for example, is the de facto standard for client-side web programming and is used for the application logic of browser-based productivity applications', near: 'the de facto standard for client-side web programming Permission to make digital or hard copies', why: 'the ACM permission/copyright block sits between "client-side web programming" and "and is used" in pdftotext\'s reading order' },
      },
      {
        id: 'paper-09', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper describes JavaScript numbers as doubles.',
        q: { span: 'only a Number type that is the set of 64-bit IEEE754 floating-pointer numbers (“doubles”).', as: 'only a Number type that is the set of 64-bit IEEE754 floating-pointer numbers ("doubles").', how: 'straight quotes for pdftotext\'s curly quotes (step 2)' },
      },
      {
        id: 'paper-10', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper says each compiled trace contains sentinels.',
        q: { span: 'Every compiled trace contains all the guards (checks) required to validate the speculation.', swap: ['guards', 'sentinels'] },
      },
      {
        id: 'paper-11', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper cites work on a language-independent type inference.',
        q: { absent: 'McCloskey (14) has work in progress based on a language-independent type inference', near: 'McCloskey (14) has work in progress based on a languageindependent type inference', why: 'pdftotext joined "language-/independent" at the line end into "languageindependent"' },
      },
      {
        id: 'paper-12', url: U(H2, '/papers/pldi09-tracemonkey.pdf'),
        claim: 'The TraceMonkey paper reports speedups of 10x.',
        q: { span: 'We have implemented a dynamic compiler for JavaScript based on our technique and we have measured speedups of 10x and more for certain benchmark programs.' },
      },
      {
        id: 'paper-13', url: U(H1, '/papers/individual-differential-privacy.pdf'),
        claim: 'The preprint calls differential privacy a popular privacy model.',
        q: { span: 'Diﬀerential privacy is a popular privacy model within the research community because of the strong privacy guarantee it oﬀers', as: 'Differential privacy is a popular privacy model within the research community because of the strong privacy guarantee it offers', how: 'plain "ff" where pdftotext outputs the ligature U+FB00, which NFKC expands (step 1); crosses line breaks' },
      },
      {
        id: 'paper-14', url: U(H1, '/papers/individual-differential-privacy.pdf'),
        claim: 'The preprint claims individual differential privacy gives perfect accuracy.',
        q: { fabricated: 'Individual differential privacy guarantees perfect accuracy for every statistical query on any data set.' },
      },
    ],
  },
  {
    name: 'pdf-public-records',
    difficulty: 'hard',
    tags: ['pdf', 'pdftotext', 'three-column', 'government', 'french', 'line-numbers'],
    about:
      'Public records as PDFs: a three-column Federal Register notice, a Supreme Court transcript with line numbers, and ' +
      'French municipal minutes. Running headers, line numbers and hyphenated numbers sit inside sentences in ' +
      'pdftotext\'s output; typographic double quotes in the Federal Register come out as two single quotes.',
    routes: [
      { host: H3, path: '/records/fr-2020-17221.pdf', src: 'fedreg', headers: PDF },
      { host: H3, path: '/records/scotus-07-1315-transcript.pdf', src: 'scotus', headers: PDF },
      { host: H1, path: '/records/sainte-adele/2023-06-20-PV.pdf', src: 'sainteadele', headers: PDF },
    ],
    claims: [
      {
        id: 'rec-01', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA proposed to supersede the emergency AD for the 737 MAX.',
        q: { span: 'The FAA proposes to supersede Airworthiness Directive (AD) 2018–23–51, which applies to all The Boeing Company Model 737–8', as: 'The FAA proposes to supersede Airworthiness Directive (AD) 2018-23-51, which applies to all The Boeing Company Model 737-8', how: 'hyphens for pdftotext\'s en dashes (step 3); the span crosses a blank line and several line breaks' },
      },
      {
        id: 'rec-02', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA notice names the 737-8 and 737-9 models.',
        q: { absent: 'which applies to all The Boeing Company Model 737–8 and 737–9 (737 MAX) airplanes.', near: 'which applies to all The Boeing Company Model 737–8 and 737– 9 (737 MAX) airplanes.', why: 'the column breaks the line after "737–"; pdftotext keeps the dash at the line end, so the source has "737– 9" (a space after normalization)' },
      },
      {
        id: 'rec-03', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA notice explains that CBI is exempt from public disclosure.',
        q: { span: 'Under the Freedom of Information Act (FOIA) (5 U.S.C. 552), CBI is exempt from public disclosure.' },
      },
      {
        id: 'rec-04', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA notice asks that CBI pages be marked PROPIN.',
        q: { absent: 'Please mark each page of your submission containing CBI as "PROPIN."', near: 'Please mark each page of your submission containing CBI as ‘‘PROPIN.’’', why: 'the Federal Register prints double quotes as two single quotes; pdftotext outputs ‘‘ ’’, which step 2 turns into \'\' \'\', not "' },
      },
      {
        id: 'rec-05', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA notice lists the ways to send comments.',
        q: { absent: 'using the procedures found in 14 CFR 11.43 and 11.45, by any of the following methods: • Federal eRulemaking Portal: Go to https://www.regulations.gov.', near: 'by any of the following methods: VerDate Sep<11>2014', why: 'the page\'s running footer ("VerDate Sep<11>2014 16:21 Aug 05, 2020 Jkt 250001") comes between "methods:" and the first bullet in pdftotext\'s output' },
      },
      {
        id: 'rec-06', url: U(H3, '/records/fr-2020-17221.pdf'),
        claim: 'The FAA notice sets a deadline for objections.',
        q: { span: 'The FAA must receive comments on this proposed AD by September 21, 2020.', swap: ['comments', 'objections'] },
      },
      {
        id: 'rec-07', url: U(H3, '/records/scotus-07-1315-transcript.pdf'),
        claim: 'The transcript lists counsel for both parties.',
        q: { span: 'Angeles, Cal.; on behalf of the Petitioner. CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent.' },
      },
      {
        id: 'rec-08', url: U(H3, '/records/scotus-07-1315-transcript.pdf'),
        claim: 'The transcript says oral argument began at 1:01 p.m.',
        q: { absent: 'The above-entitled matter came on for oral argument before the Supreme Court of the United States at 1:01 p.m.', near: 'The above-entitled matter came on for oral 13 argument before the Supreme Court of the United States 14 at 1:01 p.m.', why: 'the transcript\'s line numbers (13, 14) sit between the lines in pdftotext\'s output' },
      },
      {
        id: 'rec-09', url: U(H1, '/records/sainte-adele/2023-06-20-PV.pdf'),
        claim: 'The minutes say the building is protected as heritage.',
        q: { span: 'ATTENDU QUE le bâtiment est protégé en vertu du règlement 1274 concernant la citation du Théâtre Sainte-Adèle à titre d’immeuble patrimonial;', as: 'attendu que le bâtiment est protégé en vertu du règlement 1274 concernant la citation du Théâtre Sainte-Adèle à titre d\'immeuble patrimonial;', how: 'lower case and a straight apostrophe (steps 2 and 5); crosses two line breaks' },
      },
      {
        id: 'rec-10', url: U(H1, '/records/sainte-adele/2023-06-20-PV.pdf'),
        claim: 'The committee accepted demolition request 2023-0379.',
        q: { absent: 'à l’effet d’accepter la demande de démolition 2023-0379;', near: 'à l’effet d’accepter la demande de démolition 20230379;', why: 'the number is hyphenated at a line end ("2023-/0379") and pdftotext joins it into "20230379"' },
      },
      {
        id: 'rec-11', url: U(H1, '/records/sainte-adele/2023-06-20-PV.pdf'),
        claim: 'The meeting was adjourned at 16h05.',
        q: { span: 'La séance est levée à 16h05.' },
      },
      {
        id: 'rec-12', url: U(H1, '/records/sainte-adele/2023-06-20-PV.pdf'),
        claim: 'The project adds 43 housing units behind the preserved building.',
        q: { span: 'un agrandissement de l’arrière du bâtiment préservé, permettant l’ajout de 43 logements;', swap: ['logements', 'appartements'] },
      },
    ],
  },
  {
    name: 'pdf-edge-cases',
    difficulty: 'medium',
    tags: ['pdf', 'scanned', 'encrypted', 'password', 'vertical-text'],
    about:
      'PDFs that are hard to read or cannot be read: scans with no text layer, a file that needs a user password, ' +
      'two encrypted files that open with the empty password (RC4 and AES), and vertical Japanese text whose ' +
      'presentation-form brackets NFKC maps to ASCII parentheses.',
    routes: [
      { host: H2, path: '/edge/scan-inspection-card.pdf', src: 'scanRu', headers: PDF },
      { host: H2, path: '/edge/scan-administrative-decision.pdf', src: 'scanZh', headers: PDF },
      { host: H2, path: '/edge/protected-report.pdf', src: 'locked', headers: PDF },
      { host: H2, path: '/edge/home-loan-rates.pdf', src: 'cba', headers: PDF },
      { host: H2, path: '/edge/cabin-depressurization-appendix.pdf', src: 'asw', headers: PDF },
      { host: H2, path: '/edge/haru-to-shura-jo.pdf', src: 'jo', headers: PDF },
    ],
    claims: [
      {
        id: 'pdfx-01', url: U(H2, '/edge/scan-inspection-card.pdf'),
        claim: 'The inspection card records the vehicle as roadworthy.',
        q: { quote: 'Диагностическая карта транспортного средства', why: 'a scan with images only: pdftotext outputs no text' },
      },
      {
        id: 'pdfx-02', url: U(H2, '/edge/scan-inspection-card.pdf'),
        claim: 'The inspection card lists the vehicle identification number.',
        q: { quote: 'Идентификационный номер (VIN)', why: 'a scan with images only: pdftotext outputs no text' },
      },
      {
        id: 'pdfx-03', url: U(H2, '/edge/scan-administrative-decision.pdf'),
        claim: 'The scanned decision is an administrative penalty decision.',
        q: { quote: '行政处罚决定书', why: 'a scan with images only: pdftotext outputs no text' },
      },
      {
        id: 'pdfx-04', url: U(H2, '/edge/protected-report.pdf'),
        claim: 'The protected report contains a confidentiality notice.',
        q: { quote: 'This document is confidential and protected with a password.', why: 'the PDF needs a user password: pdftotext fails ("Incorrect password") and yields no text' },
      },
      {
        id: 'pdfx-05', url: U(H2, '/edge/home-loan-rates.pdf'),
        claim: 'The rate sheet tells readers to consult the Home Loan Fact Sheets.',
        q: { span: 'Please refer to our Home Loan Fact Sheets for details regarding our loans. The reference rate for your loan will depend on the repayment type you select – Principal and Interest or Interest Only.' },
      },
      {
        id: 'pdfx-06', url: U(H2, '/edge/home-loan-rates.pdf'),
        claim: 'The rate sheet says the reference rate depends on the loan term.',
        q: { span: 'The reference rate for your loan will depend on the repayment type you select', swap: ['repayment', 'amortisation'] },
      },
      {
        id: 'pdfx-07', url: U(H2, '/edge/cabin-depressurization-appendix.pdf'),
        claim: 'The appendix describes the 1999 Learjet accident.',
        q: { span: 'The aircraft was on a charter flight from Orlando, Florida, to Dallas. Radio communication was lost soon after the flight crew reported climbing through FL 230' },
      },
      {
        id: 'pdfx-08', url: U(H2, '/edge/cabin-depressurization-appendix.pdf'),
        claim: 'The appendix says a crack was found after the Rio de Janeiro decompression.',
        q: { span: 'A rapid decompression occurred at FL 290. A 28-in (71-cm) crack was found in the fuselage above the forward service door.', swap: ['crack', 'fracture'] },
      },
      {
        id: 'pdfx-09', url: U(H2, '/edge/haru-to-shura-jo.pdf'),
        claim: 'The poem’s preface contains a parenthetical line about transparent ghosts.',
        q: { span: '︵あらゆる透明な幽霊の複合体︶', as: '(あらゆる透明な幽霊の複合体)', how: 'ASCII parentheses where pdftotext outputs the vertical presentation forms U+FE35/U+FE36, which NFKC maps to "(" and ")" (step 1)' },
      },
      {
        id: 'pdfx-10', url: U(H2, '/edge/haru-to-shura-jo.pdf'),
        claim: 'The poem begins with a line about the phenomenon called "I".',
        q: { span: 'わたくしといふ現象は' },
      },
    ],
  },
  {
    name: 'fetch-faults',
    difficulty: 'hard',
    tags: ['http', 'redirects', 'cookies', 'gzip', 'retries', 'content-type', 'encrypted-pdf'],
    about:
      'Every source sits behind a serving fault: a chain of three redirects across two hosts, a cookie gate, a gzipped ' +
      'and slow response, a 503 twice before a 200, a 429 with Retry-After before a 200, 404, 410, a 500 on every try, ' +
      'PDFs served as application/octet-stream and as text/html at URLs without ".pdf", and an encrypted PDF that ' +
      'opens with the empty password. Once a document is served, its label depends only on its content; quotes whose ' +
      'source never answers 200 are no_match.',
    routes: [
      { host: H1, path: '/faults/r/start', redirect: { location: '/faults/r/hop2', status: 302 }, note: 'redirect 1 of 3' },
      { host: H1, path: '/faults/r/hop2', redirect: { location: `http://${H2}:{port}/faults/r/hop3`, status: 301 }, note: 'redirect 2 of 3, to another host' },
      { host: H2, path: '/faults/r/hop3', redirect: { location: '/faults/articles/star-trek-noah-hawley.html', status: 307 }, note: 'redirect 3 of 3' },
      { host: H2, path: '/faults/articles/star-trek-noah-hawley.html', src: 'verge', headers: HTML_UTF8 },
      { host: H1, path: '/faults/gated/omar-threat-plea.html', src: 'thehill', headers: HTML_UTF8, cookieGate: { name: 'qc_consent', value: 'granted' } },
      { host: H3, path: '/faults/gz/alibaba-hong-kong-listing.html', src: 'cityam', headers: HTML_UTF8, gzip: true, delayMs: 1200 },
      { host: H1, path: '/faults/flaky/yovanovitch-net-worth.html', src: 'snopes', headers: HTML_UTF8, failFirst: { count: 2, status: 503, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1></body></html>' } },
      { host: H2, path: '/faults/limited/iran-protest-killings.html', src: 'panarmenian', headers: HTML_UTF8, failFirst: { count: 1, status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }, body: 'Too Many Requests' } },
      { host: H1, path: '/faults/gone/wework-layoffs.html', status: 410, headers: HTML_UTF8, body: '<!DOCTYPE html><html><body><h1>410 Gone</h1><p>This article has been removed.</p></body></html>' },
      { host: H3, path: '/faults/broken/china-plague-fears.html', status: 500, headers: HTML_UTF8, body: '<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1></body></html>' },
      { host: H2, path: '/faults/download?doc=nics-2015-11', src: 'nics', headers: { 'content-type': 'application/octet-stream' } },
      { host: H3, path: '/faults/viewer/zen-of-python', src: 'googledoc', headers: { 'content-type': 'text/html; charset=utf-8' } },
      { host: H1, path: '/faults/docs/asw-oct96-p41.pdf', src: 'asw', headers: PDF },
    ],
    claims: [
      {
        id: 'fault-01', url: U(H1, '/faults/r/start'),
        claim: 'The Verge reported that Noah Hawley is in talks to direct the fourth Star Trek film.',
        q: { span: 'Noah Hawley, best known for creating FX’s Legion and Fargo TV series, is in final talks to write and direct it, according to reports from The Wrap and Deadline.' },
      },
      {
        id: 'fault-02', url: U(H1, '/faults/r/start'),
        claim: 'The Verge said five scripts were in contention.',
        q: { span: 'There are three scripts still in contention for the fourth Trek film, according to The Wrap', swap: ['three', 'five'] },
      },
      {
        id: 'fault-03', url: U(H1, '/faults/gated/omar-threat-plea.html'),
        claim: 'The Hill reported Carlineo’s possible sentence.',
        q: { span: 'Patrick Carlineo Jr., 55, could face up to 10 years in prison and have to pay $250,000 after pleading guilty to threatening to assault and murder a U.S. official and being a felon in possession of firearms.' },
      },
      {
        id: 'fault-04', url: U(H1, '/faults/gated/omar-threat-plea.html'),
        claim: 'The Hill reported that Omar asked for the maximum sentence.',
        q: { fabricated: 'Omar urged the judge to impose the harshest possible punishment on her caller.' },
      },
      {
        id: 'fault-05', url: U(H3, '/faults/gz/alibaba-hong-kong-listing.html'),
        claim: 'City A.M. reported the size of Alibaba’s Hong Kong listing.',
        q: { span: 'Alibaba is set to raise up to $12.9bn (£10bn) from its record-breaking second listing in Hong Kong, pricing its shares at a 2.8 per cent discount to their New York close.' },
      },
      {
        id: 'fault-06', url: U(H1, '/faults/flaky/yovanovitch-net-worth.html'),
        claim: 'Snopes found no evidence for the $17 million net worth claim.',
        q: { span: 'In other words, this claim appears to have been conjured out of thin air.' },
      },
      {
        id: 'fault-07', url: U(H1, '/faults/flaky/yovanovitch-net-worth.html'),
        claim: 'Snopes said the claim came from a credible financial outlet.',
        q: { span: 'We also found that this claim did not originate with a credible financial news outlet, such as Forbes', swap: ['Forbes', 'Bloomberg'] },
      },
      {
        id: 'fault-08', url: U(H2, '/faults/limited/iran-protest-killings.html'),
        claim: 'Amnesty said at least 106 protesters had been killed.',
        q: { span: 'At least 106 protesters in 21 cities have been killed, according to credible reports received by Amnesty.' },
      },
      {
        id: 'fault-09', url: U(H1, '/faults/missing/assange-sweden.html'),
        claim: 'The BBC reported that Sweden dropped the Assange investigation.',
        q: { quote: 'Prosecutors in Sweden have dropped an investigation into a rape allegation made against Wikileaks co-founder Julian Assange in 2010.', why: 'the sentence is real (BBC News), but no document is served at this URL' },
      },
      {
        id: 'fault-10', url: U(H1, '/faults/gone/wework-layoffs.html'),
        claim: 'The Real Deal reported that a third of WeWork staff would be laid off.',
        q: { quote: 'More than a third of WeWork’s 12,000 employees will likely receive notice this week that they no longer have a job.', why: 'the sentence is real (The Real Deal), but the page is gone' },
      },
      {
        id: 'fault-11', url: U(H3, '/faults/broken/china-plague-fears.html'),
        claim: 'Smithsonian reported fears about plague in China.',
        q: { quote: 'Three cases of plague have been diagnosed in China, sparking widespread fears about the spread of the disease', why: 'the sentence is real (Smithsonian Magazine), but the server never answers with the page' },
      },
      {
        id: 'fault-12', url: U(H2, '/faults/download?doc=nics-2015-11'),
        claim: 'The FBI table reports NICS background checks for November 2015.',
        q: { span: 'NICS Firearm Background Checks November - 2015' },
      },
      {
        id: 'fault-13', url: U(H3, '/faults/viewer/zen-of-python'),
        claim: 'The document says errors should never pass silently.',
        q: { span: 'Errors should never pass silently. Unless explicitly silenced.' },
      },
      {
        id: 'fault-14', url: U(H3, '/faults/viewer/zen-of-python'),
        claim: 'The document says there should be several obvious ways to do it.',
        q: { span: 'There should be one-- and preferably only one --obvious way to do it.', swap: ['preferably', 'ideally'] },
      },
      {
        id: 'fault-15', url: U(H1, '/faults/docs/asw-oct96-p41.pdf'),
        claim: 'The appendix describes the 2003 Beech 1900D incident in Denver.',
        q: { span: 'The aircraft was climbing through 8,000 ft when the cabin door opened. The flight crew returned to Denver.' },
      },
      {
        id: 'fault-16', url: U(H1, '/faults/docs/asw-oct96-p41.pdf'),
        claim: 'The appendix says the Learjet continued flying for hours.',
        q: { span: 'The aircraft continued flying on a northwesterly heading for 3.7 hours and reached an altitude of 40,600 ft.', swap: ['northwesterly', 'southeasterly'] },
      },
    ],
  },
  {
    name: 'intl-charsets',
    difficulty: 'hard',
    tags: ['html', 'charset', 'windows-1252', 'iso-8859-1', 'windows-1250', 'utf-8', 'cjk', 'cyrillic'],
    about:
      'German and Polish pages really encoded in windows-1252, iso-8859-1 and windows-1250, declared only in a <meta> ' +
      'tag and served as "text/html" without a charset, plus Korean and Russian UTF-8 pages with no charset declaration ' +
      'at all and a Japanese UTF-8 page. Quotes contain non-ASCII letters; one is in Unicode NFD form.',
    routes: [
      { host: H1, path: '/intl/automobilwoche-vw-betriebsversammlung.html', src: 'automobilwoche', headers: HTML_NO_CHARSET },
      { host: H1, path: '/intl/auto-presse-yaris-cross.html', src: 'autopresse', headers: HTML_NO_CHARSET },
      { host: H3, path: '/intl/tagespost-demut.html', src: 'tagespost', headers: HTML_NO_CHARSET },
      { host: H3, path: '/intl/nachrichten-alternative-therapien.html', src: 'nachrichten', headers: HTML_NO_CHARSET },
      { host: H3, path: '/intl/winfuture-nasa-plus.html', src: 'winfuture', headers: HTML_NO_CHARSET },
      { host: H1, path: '/intl/rp-unijne-fundusze.html', src: 'rzeczpospolita', headers: HTML_NO_CHARSET },
      { host: H2, path: '/intl/entermedia-lj-ryu-hwayoung.html', src: 'korean', headers: HTML_NO_CHARSET },
      { host: H2, path: '/intl/vse-diety-atkins.html', src: 'russian', headers: HTML_NO_CHARSET },
      { host: H2, path: '/intl/lhpat-jailbreak-iphone.html', src: 'japanese', headers: HTML_NO_CHARSET },
    ],
    claims: [
      {
        id: 'intl-01', url: U(H1, '/intl/automobilwoche-vw-betriebsversammlung.html'),
        claim: 'Automobilwoche wrote that the mood at Volkswagen had been sour for weeks.',
        q: { span: 'Der Haussegen bei Volkswagen hängt bereits seit einigen Wochen erneut schief.' },
      },
      {
        id: 'intl-02', url: U(H1, '/intl/automobilwoche-vw-betriebsversammlung.html'),
        claim: 'Automobilwoche wrote that works councils feel passed over by Diess.',
        q: { span: 'Betriebsräte bemängeln den Kommunikationsstil von Diess und fühlen sich von ihm laufend provoziert.', swap: ['provoziert', 'übergangen'] },
      },
      {
        id: 'intl-03', url: U(H1, '/intl/auto-presse-yaris-cross.html'),
        claim: 'auto-presse.de wrote that every Yaris Cross uses the 1.5-litre hybrid.',
        q: { span: 'Den Vortrieb übernimmt immer der 1,5-Liter-Hybridantrieb, für den optionalen Allradantrieb entscheidet sich jeder vierte Käufer.' },
      },
      {
        id: 'intl-04', url: U(H1, '/intl/auto-presse-yaris-cross.html'),
        claim: 'auto-presse.de reported early Yaris Cross sales in Germany.',
        q: { span: 'Nur wenige Wochen nach seinem Marktstart in Deutschland hat sich das City-SUV, das gegenüber dem Yaris mehr Bodenfreiheit und eine erhöhte Sitzposition bietet', as: 'nfd', how: 'the quote in Unicode NFD (ü, ö as base letter + combining diaeresis); NFKC composes them again (step 1)' },
      },
      {
        id: 'intl-05', url: U(H3, '/intl/tagespost-demut.html'),
        claim: 'Die Tagespost wrote that modern man seems to know neither cowardice nor weakness.',
        q: { span: 'In der Tat: Der moderne, säkulare Mensch scheint weder Feigheit noch Schwäche zu kennen.' },
      },
      {
        id: 'intl-06', url: U(H3, '/intl/tagespost-demut.html'), decoding: 'whatwg',
        claim: 'Die Tagespost quoted Nietzsche on humility.',
        q: { span: '„zu den gefährlichen, verleumderischen Idealen (…), hinter denen sich Feigheit und Schwäche, daher auch Ergebung in Gott“', as: '"zu den gefährlichen, verleumderischen Idealen (...), hinter denen sich Feigheit und Schwäche, daher auch Ergebung in Gott"', how: 'straight double quotes for the page\'s German „ “ (bytes 0x84, 0x93; step 2) and "..." for its … (byte 0x85; NFKC, step 1)' },
      },
      {
        id: 'intl-07', url: U(H3, '/intl/nachrichten-alternative-therapien.html'),
        claim: 'OÖNachrichten reported that mistletoe therapy is the most used complementary method.',
        q: { span: 'Komplementärmediziner verwenden am häufigsten die Misteltherapie, die immunstimulierend wirkt und auch am besten wissenschaftlich überprüft ist.' },
      },
      {
        id: 'intl-08', url: U(H3, '/intl/nachrichten-alternative-therapien.html'),
        claim: 'OÖNachrichten reported that mistletoe therapy cures half of all cancers.',
        q: { fabricated: 'Die Misteltherapie heilt laut den befragten Fachleuten jede zweite Krebserkrankung vollständig.' },
      },
      {
        id: 'intl-09', url: U(H3, '/intl/winfuture-nasa-plus.html'),
        claim: 'WinFuture announced the launch of NASA+.',
        q: { span: 'Davon können sich Nutzer bald selbst überzeugen: In der kommenden Woche startet die Organisation mit NASA+ einen eigenen Streaming-Dienst.' },
      },
      {
        id: 'intl-10', url: U(H1, '/intl/rp-unijne-fundusze.html'),
        claim: 'Rzeczpospolita reported that Ziobro’s politicians and the Confederation kept their opposition.',
        q: { span: 'Swój sprzeciw podtrzymali politycy Zbigniewa Ziobry oraz Konfederacji.' },
      },
      {
        id: 'intl-11', url: U(H2, '/intl/entermedia-lj-ryu-hwayoung.html'),
        claim: 'Entermedia wrote that it all started with LJ’s one-sided release of photos.',
        q: { span: '시작은 엘제이의 일방적인 사진 공개로부터 비롯됐다.' },
      },
      {
        id: 'intl-12', url: U(H2, '/intl/entermedia-lj-ryu-hwayoung.html'),
        claim: 'Entermedia called the photo release a clear invasion of privacy.',
        q: { span: '타인의 동의를 구하지 않고 일방적으로 두 사람의 관계를 담은 사진을 SNS에 공개한다는 건 분명한 사생활 침해이고', swap: ['SNS에', '유튜브에'] },
      },
      {
        id: 'intl-13', url: U(H2, '/intl/vse-diety-atkins.html'),
        claim: 'The Atkins diet page limits carbohydrates to 20 grams a day for two weeks.',
        q: { span: 'На протяжении двух первых недель количество углеводов не должно превышать 20 грамм в сутки.' },
      },
      {
        id: 'intl-14', url: U(H2, '/intl/vse-diety-atkins.html'),
        claim: 'The Atkins diet page lists contraindications.',
        q: { span: 'Диета противопоказана: при беременности - может неблагоприятно сказаться на ребенке', swap: ['беременности', 'простуде'] },
      },
      {
        id: 'intl-15', url: U(H2, '/intl/lhpat-jailbreak-iphone.html'),
        claim: 'The patent firm explains what jailbreaking an iPhone means.',
        q: { span: '「脱獄」とは、iPhoneのiOSを改造して機能制限を解除することで、脱獄すれば、App Storeにない非公式アプリを利用することもできるようになるとのことです。' },
      },
      {
        id: 'intl-16', url: U(H2, '/intl/lhpat-jailbreak-iphone.html'),
        claim: 'The patent firm reported that a woman in her 20s was arrested.',
        q: { span: '商標法違反の疑いで20代の男性が逮捕されたというニュースを耳にしました。', swap: ['男性', '女性'] },
      },
    ],
  },
  {
    name: 'url-identity',
    difficulty: 'medium',
    tags: ['http', 'virtual-hosts', 'query-string', 'fragment', '404'],
    about:
      'The same path on different hosts serves different documents, and URLs that differ only in the query string ' +
      'serve different documents; a fragment is not part of the request. A quote is checked against the document its ' +
      'own URL serves, not against a document some other claim cites.',
    routes: [
      { host: H2, path: '/story.html', src: 'macrumors', headers: HTML_UTF8 },
      { host: H3, path: '/story.html', src: 'realdeal', headers: HTML_UTF8 },
      { host: H1, path: '/item?id=1', src: 'snopes', headers: HTML_UTF8 },
      { host: H1, path: '/item?id=2', src: 'express', headers: HTML_UTF8 },
    ],
    claims: [
      {
        id: 'url-01', url: U(H2, '/story.html'),
        claim: 'MacRumors described iOS 13’s systemwide Dark Mode.',
        q: { span: 'One of iOS 13\'s major new features is a systemwide Dark Mode option, which matches the Dark Mode feature we got in macOS Mojave last year.' },
      },
      {
        id: 'url-02', url: U(H3, '/story.html'),
        claim: 'MacRumors described iOS 13’s systemwide Dark Mode.',
        q: { absent: 'One of iOS 13\'s major new features is a systemwide Dark Mode option, which matches the Dark Mode feature we got in macOS Mojave last year.', near: 'More than a third of WeWork’s 12,000 employees', why: 'a sentence of the MacRumors page, but this URL (same path, host 127.0.0.3) serves The Real Deal\'s WeWork article' },
      },
      {
        id: 'url-03', url: U(H3, '/story.html'),
        claim: 'The Real Deal reported that WeWork will lay off more than a third of its employees.',
        q: { span: 'More than a third of WeWork’s 12,000 employees will likely receive notice this week that they no longer have a job.' },
      },
      {
        id: 'url-04', url: U(H3, '/story.html'),
        claim: 'The Real Deal said furloughs would begin this week.',
        q: { span: 'employees were told that layoffs will begin this week in the U.S.', swap: ['layoffs', 'furloughs'] },
      },
      {
        id: 'url-05', url: U(H1, '/item?id=1'),
        claim: 'Snopes said it found no evidence for the claim.',
        q: { span: 'We have found no evidence to corroborate this claim.' },
      },
      {
        id: 'url-06', url: U(H1, '/item?id=2'),
        claim: 'Snopes said it found no evidence for the claim.',
        q: { absent: 'We have found no evidence to corroborate this claim.', near: 'However, the other 28 people have showed no signs or symptoms of the plague.', why: 'a sentence of the page at ?id=1; this URL (?id=2) serves the Daily Express plague article' },
      },
      {
        id: 'url-07', url: U(H1, '/item?id=2'),
        claim: 'The Express said none of the 28 contacts showed symptoms.',
        q: { span: 'However, the other 28 people have showed no signs or symptoms of the plague.' },
      },
      {
        id: 'url-08', url: U(H1, '/item?id=1#comments'),
        claim: 'Snopes said the claim was conjured out of thin air.',
        q: { span: 'In other words, this claim appears to have been conjured out of thin air.' },
      },
      {
        id: 'url-09', url: U(H1, '/item?id=3'),
        claim: 'Snopes said it found no evidence for the claim.',
        q: { quote: 'We have found no evidence to corroborate this claim.', why: 'there is no ?id=3 (the sentence is on the page at ?id=1)' },
      },
      {
        id: 'url-10', url: U(H1, '/story.html'),
        claim: 'MacRumors described iOS 13’s systemwide Dark Mode.',
        q: { quote: 'One of iOS 13\'s major new features is a systemwide Dark Mode option', why: '/story.html is served only on hosts 127.0.0.2 and 127.0.0.3, not on 127.0.0.1' },
      },
    ],
  },
);

// ---------------------------------------------------------------------------
// Variants (normalization itself, design §3, is in lib/builder.ts)

function applyVariant(span: string, v: Variant): string {
  switch (v) {
    case 'curly':
      return span.replace(/"([^"]*)"/g, '\u201C$1\u201D').replace(/'/g, '\u2019');
    case 'straight':
      return span.replace(/[\u201C\u201D\u201E]/g, '"').replace(/[\u2018\u2019]/g, "'");
    case 'upper':
      return span.replace(/[\u2018\u2019]/g, "'").toUpperCase();
    case 'lower':
      return span.toLowerCase();
    case 'nfd':
      return span.normalize('NFD');
    case 'whitespace': {
      const seps = ['\n', '  ', '\t', '\u00A0', ' \r\n '];
      let i = 0;
      return ' \n' + span.replace(/ /g, () => (i++ % 3 === 0 ? seps[(i / 3) % seps.length | 0] ?? ' ' : ' ')) + '\t ';
    }
  }
}

const VARIANTS: readonly string[] = ['curly', 'straight', 'upper', 'lower', 'whitespace', 'nfd'];

// ---------------------------------------------------------------------------
// Source text (the builders' implementation, lib/builder.ts; golden/check.ts has an independent one)

/** Charset per design §4 (BOM, HTTP charset, <meta> in the first 1024 bytes, UTF-8, windows-1252). */
function sniffCharset(bytes: Buffer, contentType: string | undefined): { charset: string; how: string } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', how: 'BOM' };
  const http = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '');
  if (http?.[1]) return { charset: http[1].toLowerCase(), how: 'HTTP Content-Type' };
  const head = bytes.subarray(0, 1024).toString('latin1');
  const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  if (meta?.[1]) return { charset: meta[1].toLowerCase(), how: '<meta> in the first 1024 bytes' };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { charset: 'utf-8', how: 'no declaration; valid UTF-8' };
  } catch {
    return { charset: 'windows-1252', how: 'no declaration in the first 1024 bytes; not valid UTF-8' };
  }
}

/** Charset declared anywhere in the file (what a browser's reparse would use). */
function declaredCharsetAnywhere(bytes: Buffer): string | undefined {
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(bytes.toString('latin1'));
  return m?.[1]?.toLowerCase();
}

interface HtmlView {
  charset: string;
  /** "whatwg": the Encoding Standard's decoder; "node": Node 20's TextDecoder, which decodes
   * windows-1252 (and its labels iso-8859-1, latin1, ascii) as ISO-8859-1 proper, so bytes
   * 0x80-0x9F become C1 controls instead of € „ … ‘ ’ “ ” – — */
  decoder: 'whatwg' | 'node';
  how: string;
  raw: string; // decoded markup
  doc: Document;
  full: string; // normalized full view
  article: string[]; // normalized Readability views (textContent and block text), if any
}

interface PdfView {
  text: string | null; // pdftotext output, null when it fails
  error?: string;
  norm: string;
}

const SRC_DIR = (): string => path.join(goldenDir(), 'sources');

function ensureSources(): void {
  copyMissingSources((Object.values(SOURCES) as SourceDoc[]).map((s) => s.file));
}

/** WHATWG windows-1252 for bytes 0x80-0x9F (the rest is ISO-8859-1). */
const W1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWhatwg(bytes: Buffer, charset: string): string {
  const d = new TextDecoder(charset);
  if (d.encoding !== 'windows-1252') return d.decode(bytes);
  let out = '';
  for (const b of bytes) out += String.fromCharCode(b >= 0x80 && b <= 0x9f ? W1252_C1[b - 0x80]! : b);
  return out;
}

const htmlCache = new Map<string, HtmlView>();
function htmlViews(key: SrcKey, contentType: string | undefined): HtmlView[] {
  const bytes = fs.readFileSync(path.join(SRC_DIR(), SOURCES[key].file));
  const sniff = sniffCharset(bytes, contentType);
  const charsets = [sniff.charset];
  // When the declaration sits past byte 1024, a browser may still switch to it:
  // labels must then hold under both decodings.
  const anywhere = declaredCharsetAnywhere(bytes);
  if (!/charset/i.test(contentType ?? '') && anywhere && anywhere !== sniff.charset && anywhere !== 'utf-8') charsets.push(anywhere);
  const views: HtmlView[] = [];
  for (const cs of charsets) {
    const whatwg = decodeWhatwg(bytes, cs);
    const node = new TextDecoder(cs).decode(bytes);
    const decodings: ['whatwg' | 'node', string][] = [['whatwg', whatwg]];
    if (node !== whatwg) decodings.push(['node', node]);
    for (const [decoder, raw] of decodings) {
      const ck = `${key}|${cs}|${decoder}`;
      let v = htmlCache.get(ck);
      if (!v) {
        const how = cs === sniff.charset ? sniff.how : '<meta> declared after byte 1024';
        v = { charset: cs, decoder, how, raw, ...htmlText(raw) };
        htmlCache.set(ck, v);
      }
      views.push(v);
    }
  }
  return views;
}

const pdfCache = new Map<string, PdfView>();
function pdfView(key: SrcKey): PdfView {
  let v = pdfCache.get(key);
  if (!v) {
    const out = pdftotext(path.join(SRC_DIR(), SOURCES[key].file));
    v = out.text === null ? { text: null, error: out.error, norm: '' } : { text: out.text, norm: normalize(out.text) };
    pdfCache.set(key, v);
  }
  return v;
}

const isPdf = (key: SrcKey): boolean => isPdfBytes(fs.readFileSync(path.join(SRC_DIR(), SOURCES[key].file)));

// ---------------------------------------------------------------------------
// Locating spans (HTML): inside ONE element without block-level descendants, or ONE text node

/**
 * Text of an element with a space at every element boundary that falls between two
 * letters or digits ("<b>Word</b>s", "Omar<span>Ilhan"): spans must survive this too,
 * so that no verbatim span depends on how inline boundaries inside a word are joined.
 */
function spacedText(el: Element): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) out.push((n as Text).data);
    else if (n.nodeType === 1) {
      out.push('\u0000');
      for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
      out.push('\u0000');
    }
  };
  for (let c = el.firstChild; c; c = c.nextSibling) walk(c);
  const joined = out.join('');
  let res = '';
  for (let i = 0; i < joined.length; i++) {
    const ch = joined[i]!;
    if (ch !== '\u0000') {
      res += ch;
      continue;
    }
    let j = i;
    while (joined[j + 1] === '\u0000') j++;
    const before = res.slice(-1);
    const after = joined[j + 1] ?? '';
    if (/[\p{L}\p{N}]/u.test(before) && /[\p{L}\p{N}]/u.test(after)) res += ' ';
    i = j;
  }
  return res;
}

function locateHtml(view: HtmlView, span: string, id: string): string {
  const found = findElement(view.doc.body, span);
  if (found) {
    const { tag, index, el } = found;
    if (!collapse(spacedText(el)).includes(collapse(span))) {
      throw new Error(`${id}: span crosses an inline element boundary without whitespace in <${tag}> #${index}`);
    }
    return `<${tag}> #${index} in <body>`;
  }
  const t = findTextNode(view.doc, span, (n) => !n.parentElement || isShown(n.parentElement));
  if (t) {
    const p = t.parentElement;
    const where = p ? `<${p.localName}${p.id ? ` id="${p.id}"` : p.className ? ` class="${String(p.className).split(/\s+/)[0]}"` : ''}>` : 'body';
    return `one text node inside ${where}`;
  }
  throw new Error(`${id}: span not found inside one element or text node: ${JSON.stringify(span)}`);
}

function locatePdf(view: PdfView, span: string, id: string): string {
  if (view.text === null) throw new Error(`${id}: pdftotext failed: ${view.error}`);
  const m = findPdfSpan(view.text, span);
  if (!m) throw new Error(`${id}: span is not in pdftotext's output (as written): ${JSON.stringify(span)}`);
  return `page ${m.page}${lineBreaks(m.breaks)}`;
}

// ---------------------------------------------------------------------------
// Serving: what a correct fetcher gets for a claim URL

interface Served {
  ok: boolean;
  src?: SrcKey;
  contentType?: string;
  steps: string[];
  status?: number;
}

function resolve(url: string, routes: RouteSpec[]): Served {
  const steps: string[] = [];
  let u = new URL(url);
  for (let hop = 0; hop < 10; hop++) {
    const reqPath = u.pathname + u.search;
    const r =
      routes.find((x) => x.path === reqPath && x.host === u.hostname) ??
      routes.find((x) => x.path === reqPath && x.host === undefined);
    if (!r || Number(u.port) !== GOLDEN_PORT) return { ok: false, steps: [...steps, '404 (no route)'], status: 404 };
    if (r.redirect) {
      steps.push(`${r.redirect.status ?? 302} to ${r.redirect.location.replace(/\{port\}/g, String(GOLDEN_PORT))}`);
      u = new URL(r.redirect.location.replace(/\{port\}/g, String(GOLDEN_PORT)), u);
      continue;
    }
    if (r.hang) return { ok: false, steps: [...steps, 'never answers'] };
    if (r.failFirst) steps.push(`${r.failFirst.status} ×${r.failFirst.count}${r.failFirst.headers?.['retry-after'] ? ` (Retry-After: ${r.failFirst.headers['retry-after']})` : ''}`);
    if (r.cookieGate) steps.push(`302 setting cookie ${r.cookieGate.name}=${r.cookieGate.value}, back to the same URL`);
    const status = r.status ?? 200;
    if (status >= 300) return { ok: false, steps: [...steps, `${status} on every request`], status };
    if (!r.src) return { ok: false, steps: [...steps, 'no document'], status };
    const extras = [r.gzip ? 'gzip' : '', r.delayMs ? `${r.delayMs} ms delay` : ''].filter(Boolean).join(', ');
    steps.push(`200 ${r.headers?.['content-type'] ?? '(no content-type)'}${extras ? ` (${extras})` : ''}`);
    return { ok: true, src: r.src, contentType: r.headers?.['content-type'], steps, status: 200 };
  }
  return { ok: false, steps: [...steps, 'too many redirects'] };
}

// ---------------------------------------------------------------------------
// Deriving and checking one label


function deriveClaim(task: TaskSpec, c: ClaimSpec): Labelled {
  const served = resolve(c.url, task.routes);
  const q = c.q;
  const base = { task: task.name, id: c.id, claim: c.claim, url: c.url };
  const plain = served.steps.length === 1 && /^200 (text\/html; charset=utf-8|application\/pdf)$/.test(served.steps[0] ?? '');
  const via = plain ? '' : `; served: ${served.steps.join(' → ')}`;

  if ('why' in q && 'quote' in q) {
    // source yields no text
    if (served.ok && served.src) {
      const src = served.src;
      if (!isPdf(src)) fail(c.id, 'an unreadable-source claim must point at a failing URL or a PDF without text');
      const v = pdfView(src);
      if (v.norm !== '') fail(c.id, 'pdftotext does find text in this PDF');
      return { ...base, quote: q.quote, label: 'no_match', rule: `no_match: ${q.why}${via}` };
    }
    return { ...base, quote: q.quote, label: 'no_match', rule: `no_match: source fails: ${served.steps.join(' → ')}; ${q.why}` };
  }
  if (!served.ok || !served.src) fail(c.id, `URL does not serve a document (${served.steps.join(' → ')})`);
  const src = served.src;
  const pdf = isPdf(src);
  const texts: string[] = [];
  let views: HtmlView[] = [];
  let pv: PdfView | undefined;
  if (pdf) {
    pv = pdfView(src);
    if (pv.text === null) fail(c.id, `pdftotext fails: ${pv.error}`);
    texts.push(pv.norm);
  } else {
    views = htmlViews(src, served.contentType);
    if (c.decoding === 'whatwg') views = views.filter((v) => v.decoder === 'whatwg');
    for (const v of views) texts.push(v.full);
  }
  let charsetNote = '';
  if (!pdf && views.length > 0) {
    const charsets = [...new Set(views.map((v) => `${v.charset} (${v.how})`))];
    const decoders = new Set(views.map((v) => v.decoder));
    if (charsets.length > 1) charsetNote = `; decoded as ${charsets.join(' and as ')}: holds under both`;
    else if (views[0]!.charset !== 'utf-8') charsetNote = `; decoded as ${charsets[0]}`;
    if (decoders.has('node')) charsetNote += '; holds both with the Encoding Standard\'s windows-1252 and with Node 20\'s TextDecoder (which maps bytes 0x80-0x9F to C1 controls)';
    else if (c.decoding === 'whatwg') charsetNote += '; needs the Encoding Standard\'s windows-1252 for bytes 0x80-0x9F (Node 20\'s TextDecoder maps them to C1 controls and misses this)';
  }
  const pub = SOURCES[src].pub;
  /** "a span of <p> #13 in <body> of X's page" / "a span of the pdftotext output of X (page 1, ...)" */
  const spanOf = (where: string): string =>
    pdf
      ? `a span of pdftotext's output for ${pub} (${where})`
      : where.startsWith('one text node')
        ? `a span of ${where} of ${pub}'s page`
        : `a span of the text of ${where} of ${pub}'s page (an element without block-level or <br> descendants)`;
  const kind = pdf ? `pdftotext's output for ${pub}` : `${pub}'s page`;

  const locate = (span: string): string => {
    const where = pdf ? locatePdf(pv!, span, c.id) : views.map((v) => locateHtml(v, span, c.id))[0]!;
    for (const t of texts) if (!t.includes(normalize(span))) fail(c.id, `span not in the normalized source text: ${span}`);
    return where;
  };
  /** no_match facts: not in the full view (every decoding) nor in Readability's article view. */
  const assertAbsent = (quote: string): void => {
    const nq = normalize(quote);
    for (const t of texts) if (t.includes(nq)) fail(c.id, `quote IS in the source text: ${quote}`);
    for (const v of views) for (const a of v.article) if (a.includes(nq)) fail(c.id, `quote IS in Readability's article view: ${quote}`);
  };
  const wordAbsent = (w: string): void => {
    const nw = normalize(w);
    for (const t of texts) if (t.includes(nw)) fail(c.id, `replacement "${w}" occurs in the source text`);
    for (const v of views) if (normalize(v.raw).includes(nw)) fail(c.id, `replacement "${w}" occurs in the page's markup`);
  };

  if ('splice' in q) {
    const [a, b] = q.splice;
    const wa = locate(a);
    const wb = locate(b);
    if (!pdf && wa === wb) fail(c.id, 'splice halves come from the same element');
    const quote = `${a} ... ${b}`;
    assertAbsent(quote);
    return { ...base, quote, label: 'no_match', rule: `no_match: two verbatim spans of ${kind} (${wa}; ${wb}) joined with " ... ", which the source does not have between them${charsetNote}${via}` };
  }
  if ('fabricated' in q) {
    const nq = normalize(q.fabricated).split(' ');
    if (nq.length < 5) fail(c.id, 'fabricated quote needs at least 5 words');
    for (let i = 0; i + 5 <= nq.length; i++) {
      const sh = nq.slice(i, i + 5).join(' ');
      for (const t of texts) if (t.includes(sh)) fail(c.id, `fabricated quote shares the 5-word shingle "${sh}" with the source`);
    }
    assertAbsent(q.fabricated);
    return { ...base, quote: q.fabricated, label: 'no_match', rule: `no_match: fabricated sentence; none of its ${nq.length - 4} 5-word shingles occurs in ${kind}'s normalized text${charsetNote}${via}` };
  }
  if ('absent' in q) {
    for (const t of texts) if (!t.includes(normalize(q.near))) fail(c.id, `"near" text is not in the source: ${q.near}`);
    assertAbsent(q.absent);
    return { ...base, quote: q.absent, label: 'no_match', rule: `no_match: ${q.why}; ${kind} has "${q.near}"${charsetNote}${via}` };
  }
  // the remaining kinds start from a span
  const where = locate(q.span);
  if ('swap' in q) {
    const [from, to] = q.swap;
    // a whole word; in scripts written without spaces (Han, Kana) a run of characters
    const cjk = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u.test(from);
    const re = cjk ? new RegExp(`()${reEsc(from)}`, 'u') : wordRe(from);
    if (!re.test(q.span)) fail(c.id, `"${from}" is not a word of the span`);
    const quote = q.span.replace(re, (_m, pre: string) => pre + to);
    wordAbsent(to);
    assertAbsent(quote);
    return { ...base, quote, label: 'no_match', rule: `no_match: ${spanOf(where)} with the word "${from}" replaced by "${to}", which occurs nowhere in the source${charsetNote}${via}` };
  }
  if ('tail' in q) {
    const quote = q.span + q.tail;
    assertAbsent(quote);
    return { ...base, quote, label: 'no_match', rule: `no_match: ${spanOf(where)}, followed by "${q.tail.trim()}", which the source does not have after it${charsetNote}${via}` };
  }
  if ('drop' in q) {
    if (!q.span.includes(q.drop)) fail(c.id, 'drop text is not part of the span');
    const quote = q.span.replace(q.drop, '');
    assertAbsent(quote);
    return { ...base, quote, label: 'no_match', rule: `no_match: ${spanOf(where)} with "${q.drop.trim()}" left out of its middle (no ellipsis), which makes a word sequence the source does not have${charsetNote}${via}` };
  }
  if ('as' in q) {
    const quote = VARIANTS.includes(q.as) ? applyVariant(q.span, q.as as Variant) : q.as;
    if (normalize(quote) !== normalize(q.span)) fail(c.id, `variant does not normalize to the span: ${JSON.stringify(normalize(quote))}`);
    if (quote === q.span && !/control case/.test(q.how)) fail(c.id, 'variant equals the span');
    const how = quote === q.span ? 'identical text' : q.how;
    return { ...base, quote, label: 'verbatim', rule: `verbatim: ${spanOf(where)}, written with ${how}${charsetNote}${via}` };
  }
  return { ...base, quote: q.span, label: 'verbatim', rule: `verbatim: ${spanOf(where)}${charsetNote}${via}` };
}

// ---------------------------------------------------------------------------
// Writing the task folders

/** The golden sources are on loopback, which `quotecheck mcp` refuses unless told: its tasks' MCP server allows it. */
export const GOLDEN_MCP_ARGS = ['--allow-private'] as const;

/** One place the task folders are written to, in one variant. */
export interface GoldenOutput {
  /** Where the task folders go. golden/tasks gets routes.json and labelled.jsonl beside it; anywhere else, only
   *  the task folders are written (golden/ is left as committed). */
  tasksDir: string;
  /** What every task ships besides the instruction (the skill, the MCP server); default neither, as committed. */
  variant?: TaskVariant;
}

export interface GoldenBuildOptions {
  /** Default: golden/tasks, plain. Several outputs share one derivation of the labels (the slow part). */
  outputs?: GoldenOutput[];
}

/** Builds the golden tasks (and, into golden/ itself, their routes and labels); prints the per-task summary. */
export function buildGolden(opts: GoldenBuildOptions = {}): void {
  ensureSources();
  const dir = goldenDir();
  const outputs = (opts.outputs ?? [{ tasksDir: path.join(dir, 'tasks') }]).map(({ tasksDir, variant = {} }) => ({
    tasksDir,
    variant: variant.mcp ? { ...variant, mcpArgs: [...GOLDEN_MCP_ARGS, ...(variant.mcpArgs ?? [])] } : variant,
  }));
  const inGolden = outputs.some((o) => path.resolve(o.tasksDir) === path.resolve(dir, 'tasks'));
  const ids = new Set<string>();
  const routeKeys = new Set<string>();
  const routes: Route[] = [];
  const all: Labelled[] = [];
  const summary: string[] = [];

  for (const t of TASKS) {
    for (const r of t.routes) {
      const k = `${r.host} ${r.path}`;
      if (routeKeys.has(k)) throw new Error(`route ${k} defined twice`);
      routeKeys.add(k);
      const { src, note: _note, ...rest } = r;
      const route: Route = { ...rest };
      if (src) route.file = `sources/${SOURCES[src].file}`;
      routes.push(route);
    }
    const labelled: Labelled[] = [];
    for (const c of t.claims) {
      if (ids.has(c.id)) throw new Error(`duplicate id ${c.id}`);
      ids.add(c.id);
      const u = new URL(c.url);
      if (!/^127\.0\.0\.[123]$/.test(u.hostname) || Number(u.port) !== GOLDEN_PORT) throw new Error(`${c.id}: URL must be on 127.0.0.x:${GOLDEN_PORT}`);
      labelled.push(deriveClaim(t, c));
    }
    all.push(...labelled);

    for (const { tasksDir, variant = {} } of outputs) {
      const tdir = path.join(tasksDir, t.name);
      fs.rmSync(tdir, { recursive: true, force: true });
      // The task files are the same templates `quotecheck export` writes (src/harbor/templates.ts).
      writeFile(path.join(tdir, 'instruction.md'), instruction(labelled.length, labelled.map((l) => l.id), t.about));
      writeFile(
        path.join(tdir, 'task.toml'),
        taskToml({ author: 'quotecheck golden benchmark', difficulty: t.difficulty, tags: ['quotecheck', ...t.tags, ...variantTags(variant)], ...variantTomlOptions(variant) }),
      );
      writeFile(path.join(tdir, 'environment', 'Dockerfile'), environmentDockerfile(variant));
      writeFile(
        path.join(tdir, 'environment', 'claims.json'),
        JSON.stringify(labelled.map((l) => ({ id: l.id, claim: l.claim, quote: l.quote, url: l.url })), null, 2) + '\n',
      );
      if (variant.skill) installSkill(path.join(tdir, 'environment'), bundledSkillDir());
      writeFile(path.join(tdir, 'solution', 'solve.sh'), solveScript(), 0o755);
      writeFile(path.join(tdir, 'tests', 'test.sh'), testScript(), 0o755);
      writeFile(
        path.join(tdir, 'tests', 'gold.json'),
        JSON.stringify(Object.fromEntries(labelled.map((l) => [l.id, l.label])), null, 2) + '\n',
      );
    }
    const v = labelled.filter((l) => l.label === 'verbatim').length;
    summary.push(`${t.name.padEnd(22)} ${String(labelled.length).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(labelled.length - v).padStart(3)} no_match`);
  }
  // The drift task has its own builder (sources that changed since their verify date, and their captures).
  const drift = buildDrift({ outputs });
  const dv = drift.filter((l) => l.label === 'verbatim').length;
  summary.push(`${DRIFT_TASK.padEnd(22)} ${String(drift.length).padStart(3)} claims  ${String(dv).padStart(3)} verbatim  ${String(drift.length - dv).padStart(3)} no_match  (golden/drift/labelled.jsonl)`);
  if (inGolden) {
    // remove task folders that are no longer in the spec
    const tasksDir = path.join(dir, 'tasks');
    for (const d of fs.readdirSync(tasksDir)) if (d !== DRIFT_TASK && !TASKS.some((t) => t.name === d)) fs.rmSync(path.join(tasksDir, d), { recursive: true, force: true });
    writeFile(path.join(dir, 'routes.json'), JSON.stringify(routes, null, 2) + '\n');
    writeFile(path.join(dir, 'labelled.jsonl'), all.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
  const v = all.filter((l) => l.label === 'verbatim').length + dv;
  const n = all.length + drift.length;
  console.log(summary.join('\n'));
  console.log(`${'total'.padEnd(22)} ${String(n).padStart(3)} claims  ${String(v).padStart(3)} verbatim  ${String(n - v).padStart(3)} no_match (${((100 * (n - v)) / n).toFixed(1)}% no_match)`);
}

/** `node dist/golden/build.js [--out DIR] [--with-skill] [--with-mcp]`: a bad option is one line and exit 2. */
function main(argv: string[]): number {
  let values: { out?: string; 'with-skill'?: boolean; 'with-mcp'?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { out: { type: 'string' }, 'with-skill': { type: 'boolean' }, 'with-mcp': { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    console.error(`golden/build: error: ${(err as Error).message} (usage: build.js [--out DIR] [--with-skill] [--with-mcp])`);
    return 2;
  }
  const variant = { skill: values['with-skill'] === true, mcp: values['with-mcp'] === true };
  buildGolden({ outputs: [{ tasksDir: values.out ?? path.join(goldenDir(), 'tasks'), variant }] });
  return 0;
}

if (isMain(import.meta.url)) process.exitCode = main(process.argv.slice(2));
