// docs/how-it-decides.md#decoding: bytes are decoded as a browser decodes them. A <meta> declaration counts wherever it sits in the head (late ones too), not in comments or raw text;
// undeclared legacy pages get the encoding they look like (chardet); charsetSource says where the charset came from (docs/how-it-decides.md#decoding).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, test } from 'vitest';
import { labelToName } from 'whatwg-encoding';
import { decodeHtml, decodeText, type CharsetSource } from '../../src/extract/decode.js';
import { extractSource } from '../../src/extract/index.js';
import { FIXTURES } from '../support/helpers.js';

const SOURCES: CharsetSource[] = ['bom', 'http', 'meta', 'detected', 'default'];

/** Bytes from markup (ASCII strings, taken byte for byte) and already encoded text. */
function bytes(...parts: (string | Uint8Array)[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));
}

const encode = (text: string, encoding: string): Buffer => iconv.encode(text, encoding);

// Natural text written for these tests, two paragraphs each.
const POLISH = [
  'Wczoraj wieczorem nad Warszawą przeszła gwałtowna burza, która zerwała dachy kilku budynków i powaliła dziesiątki drzew. Straż pożarna przyjęła ponad trzysta zgłoszeń, a część mieszkańców Żoliborza i Bielan przez kilka godzin nie miała prądu.',
  'Źródła w ratuszu podają, że usuwanie szkód potrwa co najmniej do końca tygodnia. Synoptycy ostrzegają przed kolejnymi nawałnicami i radzą, by nie parkować samochodów pod drzewami.',
];
const RUSSIAN: [string, ...string[]] = [
  'Вчера вечером в центре Москвы прошёл сильный ливень, из-за которого на нескольких улицах было затруднено движение транспорта. По данным синоптиков, за один час выпало больше месячной нормы осадков, а в некоторых районах вода поднялась почти до колен. Коммунальные службы работали всю ночь, чтобы очистить ливнёвки и откачать воду из подземных переходов.',
  'Специалисты отмечают, что подобные явления в последние годы случаются всё чаще. Городские власти обещают модернизировать систему водоотведения и просят жителей заранее следить за прогнозом погоды и не оставлять автомобили в низинах.',
];
const UKRAINIAN = [
  'Учора ввечері над Києвом пройшла сильна злива, через яку на кількох вулицях міста ускладнився рух транспорту. За даними синоптиків, за одну годину випала майже місячна норма опадів, а в деяких районах вода піднялася майже до колін.',
  'Фахівці зазначають, що подібні явища останніми роками трапляються дедалі частіше. Міська влада обіцяє модернізувати систему водовідведення і просить мешканців стежити за прогнозом погоди та не залишати автомобілі в низинах.',
];
const GREEK = [
  'Η Αθήνα ξύπνησε χθες το πρωί με δυνατή βροχή, που προκάλεσε σοβαρά προβλήματα στην κυκλοφορία στο κέντρο της πόλης. Σύμφωνα με την Πυροσβεστική Υπηρεσία, δέχτηκαν περισσότερες από διακόσιες κλήσεις για αντλήσεις υδάτων από υπόγεια και καταστήματα.',
  'Οι μετεωρολόγοι προειδοποιούν ότι η κακοκαιρία θα συνεχιστεί και τις επόμενες δύο ημέρες, με ισχυρούς ανέμους στο Αιγαίο και χιονοπτώσεις στα ορεινά της βόρειας Ελλάδας.',
];
const JAPANESE = [
  '昨日の午後、東京都内では突然の大雨により、一部の電車が運転を見合わせました。気象庁によると、都心では一時間に五十ミリを超える激しい雨が降り、道路が冠水した地域もあったということです。駅では帰宅を急ぐ人たちが長い列を作り、タクシー乗り場にも多くの人が集まりました。',
  '専門家は、このような局地的な豪雨は近年増えていると指摘しています。都は、排水設備の整備を進めるとともに、住民に対して気象情報をこまめに確認し、早めに避難するよう呼びかけています。',
];
const CHINESE = [
  '昨天下午，北京市区突降暴雨，部分地铁线路暂停运营，许多市民被困在车站里。据气象部门介绍，这场降雨来得突然，一小时内的降水量超过了五十毫米，城区多条道路出现严重积水。交通管理部门随即启动应急预案，派出大量警力在主要路口疏导车辆。',
  '专家指出，近年来城市极端天气事件明显增多，排水系统的建设和改造需要加快推进。市政府表示，将进一步完善预警机制，及时向公众发布天气信息，并提醒市民在恶劣天气条件下尽量减少外出。',
];
const TRADITIONAL_CHINESE = [
  '昨天下午，臺北市區突然下起大雨，部分捷運路段一度暫停營運，許多民眾受困在車站內。根據中央氣象局的資料，這場雨來得又快又急，一小時內的雨量超過五十毫米，市區多條道路嚴重積水。交通單位隨即派出人員在主要路口指揮交通，協助車輛疏散。',
  '專家表示，近年來極端天氣的發生頻率明顯增加，都市排水系統的改善工程必須加快腳步。市政府也提醒民眾，遇到豪雨時應隨時注意最新的氣象資訊，並儘量避免外出。',
];
const KOREAN = [
  '어제 오후 서울 도심에 갑작스러운 폭우가 쏟아지면서 일부 지하철 운행이 한때 중단되었습니다. 기상청에 따르면 한 시간 동안 오십 밀리미터가 넘는 비가 내렸고, 도로 곳곳이 물에 잠겨 차량 통행이 통제되었습니다. 퇴근길 시민들은 역 안에서 발이 묶인 채 비가 그치기를 기다려야 했습니다.',
  '전문가들은 최근 들어 국지성 집중호우가 잦아지고 있다며 배수 시설을 서둘러 정비해야 한다고 지적했습니다. 서울시는 시민들에게 기상 정보를 수시로 확인하고 위험 지역에는 접근하지 말 것을 당부했습니다.',
];
const GERMAN = [
  'Nach dem schweren Unwetter vom Wochenende räumen die Gemeinden im Süden Bayerns noch immer auf. Zahlreiche Straßen waren überflutet, in mehreren Orten liefen Keller voll, und die Feuerwehr rückte zu über dreihundert Einsätzen aus.',
  'Der Bürgermeister sprach von einem „Jahrhundertereignis“ und kündigte an, die Hochwasserschutzmaßnahmen zu überprüfen. Verletzt wurde nach Angaben der Polizei niemand.',
];

/** A body of paragraphs in an encoding. */
const paragraphs = (texts: string[], encoding: string): Buffer =>
  bytes(...texts.flatMap((t) => ['<p>', encode(t, encoding), '</p>\n']));

// Head content that real news sites put before their <meta>: long inline scripts, comments, styles.
const SCRIPT_LINE =
  'window.dataLayer = window.dataLayer || []; dataLayer.push({ "event": "pageview", "section": "news", "slot": "<div class=\\"ad\\"></div>", "ok": 1 < 2 });\n';
const COMMENT_LINE =
  '<div class="promo"><a href="/abo">Subscribe</a></div> Rendered by CMS 4.2 -- cache node 17, edge eu-west.\n';
const STYLE_LINE =
  '.article p > a:hover { color: #c00; margin: 0 0 1em; font-family: Georgia, "Times New Roman", serif; }\n';
const repeatTo = (line: string, size: number) => line.repeat(Math.ceil(size / line.length));
const PADDING = {
  'inline script': (size: number) => `<script>\n${repeatTo(SCRIPT_LINE, size)}</script>\n`,
  comment: (size: number) => `<!--\n${repeatTo(COMMENT_LINE, size)}-->\n`,
  style: (size: number) => `<style>\n${repeatTo(STYLE_LINE, size)}</style>\n`,
};

/** A page whose head holds `head` (after the padding) and whose body holds `body`. */
function page(head: (string | Uint8Array)[], body: Uint8Array, padding = ''): Buffer {
  return bytes(
    '<!DOCTYPE html>\n<html lang="pl">\n<head>\n',
    padding,
    ...head,
    '<title>Wiadomości</title>\n</head>\n<body>\n',
    body,
    '</body>\n</html>\n',
  );
}

/** Where `needle` starts in the page's bytes: the tests check that their declarations really sit past the 1024-byte prescan. */
const offsetOf = (b: Buffer, needle: string) => b.indexOf(needle, 0, 'latin1');

const POLISH_BODY = paragraphs(POLISH, 'windows-1250');
const RUSSIAN_BODY = paragraphs(RUSSIAN, 'windows-1251');

describe('a <meta> after the first 1024 bytes, still in the head, decides ("change the encoding")', () => {
  test('the test texts read differently in windows-1252 (so only the right charset passes)', () => {
    expect(decodeHtml(POLISH_BODY, 'windows-1252').text).not.toContain(POLISH[0]);
    expect(decodeHtml(RUSSIAN_BODY, 'windows-1252').text).not.toContain(RUSSIAN[0]);
    expect(decodeHtml(RUSSIAN_BODY, 'koi8-r').text).not.toContain(RUSSIAN[0]);
  });

  const cases = (['inline script', 'comment', 'style'] as const).flatMap((kind) =>
    [2048, 4096, 8192].flatMap((size) => [
      [kind, size, 'windows-1250', POLISH_BODY, POLISH] as const,
      [kind, size, 'windows-1251', RUSSIAN_BODY, RUSSIAN] as const,
    ]),
  );
  test.each(cases)('after a %s of %i bytes: %s', (kind, size, charset, body, texts) => {
    const meta = `<meta charset="${charset}">\n`;
    const b = page([meta], body, PADDING[kind](size));
    expect(offsetOf(b, meta)).toBeGreaterThan(size);
    const decoded = decodeHtml(b);
    expect(decoded).toMatchObject({ charset, charsetSource: 'meta' });
    for (const t of texts) expect(decoded.text).toContain(t);
  });

  test('the same with the http-equiv form', () => {
    const b = page(
      ['<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">\n'],
      RUSSIAN_BODY,
      PADDING['inline script'](5000),
    );
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test('a real page: rp.pl declares Windows-1250 at byte 2045, after a long head', () => {
    const b = gunzipSync(readFileSync(join(FIXTURES, 'charset', 'traf-rp.pl-unijne-fundusze.html.gz')));
    expect(offsetOf(b, 'charset=Windows-1250')).toBeGreaterThan(1024);
    const decoded = decodeHtml(b);
    expect(decoded).toMatchObject({ charset: 'windows-1250', charsetSource: 'meta' });
    expect(decoded.text).toContain('Swój sprzeciw podtrzymali politycy Zbigniewa Ziobry oraz Konfederacji.');
  });
});

describe('comments before the declaration: the scan is linear in the page', () => {
  // Each comment used to search the rest of the page for `--!>`: 40,000 comments took half a minute, and a
  // 1 MB error page of comments (read on the main thread) about seven minutes. Linear, 150,000 take well under a second.
  test('150,000 comments, then <meta charset=windows-1252>: the declaration is found, and the text decodes by it', () => {
    const page = Buffer.concat([
      Buffer.from(`<html><head>${'<!--x-->'.repeat(150_000)}<meta charset="windows-1252"></head><body><p>caf`),
      Buffer.from([0xe9]),
      Buffer.from('</p></body></html>'),
    ]);
    const decoded = decodeHtml(page);
    expect(decoded.charsetSource).toBe('meta');
    expect(decoded.charset).toBe('windows-1252');
    expect(decoded.text.endsWith('<p>café</p></body></html>')).toBe(true);
  }, 20_000);

  test('`--!>` still ends a comment when it comes before any `-->`', () => {
    const decoded = decodeHtml(
      Buffer.from('<head><!-- a --!><meta charset="iso-8859-2"><!-- b --></head><body>x</body>'),
    );
    expect(decoded.charset).toBe('ISO-8859-2');
  });
});

describe('what does not count as a declaration', () => {
  const pad = PADDING['inline script'](3000);
  const real = '<meta charset="windows-1251">\n';

  test('a <meta> inside a comment: the later real one wins', () => {
    const b = page(['<!-- old template: <meta charset="koi8-r"> -->\n', real], RUSSIAN_BODY, pad);
    expect(offsetOf(b, 'koi8-r')).toBeGreaterThan(1024);
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test('a <meta> inside a script string: the later real one wins', () => {
    const b = page(
      ['<script>var tpl = \'<meta charset="koi8-r"><p>\' + title + "</p>";</script>\n', real],
      RUSSIAN_BODY,
      pad,
    );
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test('in an old-style escaped script (<!-- document.write("<script>...</script>") -->), nothing is markup until </script>', () => {
    const script =
      '<script type="text/javascript"><!--\ndocument.write(\'<meta charset="koi8-r"><script src="/ads.js"></script>\');\n// --></script>\n';
    const b = page([script, real], RUSSIAN_BODY, pad);
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test.each([
    ['title', '<title>How to declare <meta charset="koi8-r"> right</title>\n'],
    ['style', '<style>/* <meta charset="koi8-r"> */ p { color: red }</style>\n'],
    ['noscript (scripting is on, as in a browser)', '<noscript><meta charset="koi8-r"></noscript>\n'],
  ])('raw text is not markup: %s', (_what, decoy) => {
    const b = page([decoy, real], RUSSIAN_BODY, pad);
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test("in the first 1024 bytes, a textarea's text is bytes to the prescan too: its <meta> comes first", () => {
    const b = bytes(
      '<html><body><textarea><meta charset="koi8-r"></textarea><meta charset="windows-1251"><p>',
      encode(RUSSIAN[0], 'windows-1251'),
    );
    expect(decodeHtml(b)).toMatchObject({ charset: 'KOI8-R', charsetSource: 'meta' });
  });

  test('inside the first 1024 bytes, a <meta> in a script string counts: the prescan (§13.2.3.2) knows no scripts, as in every browser', () => {
    const b = page(['<script>var tpl = \'<meta charset="koi8-r">\';</script>\n', real], RUSSIAN_BODY, '');
    expect(offsetOf(b, 'koi8-r')).toBeLessThan(1024);
    expect(decodeHtml(b)).toMatchObject({ charset: 'KOI8-R', charsetSource: 'meta' });
  });

  test('an unknown, undecodable or odd label is skipped, and the next declaration counts', () => {
    for (const label of [
      'no-such-encoding',
      'iso-2022-kr' /* the replacement encoding */,
      'constructor' /* whatwg-encoding's object lookup answers a function */,
      '',
    ]) {
      const b = page([`<meta charset="${label}">\n`, real], RUSSIAN_BODY, pad);
      expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
    }
  });

  test('a <meta name=...> with a charset in its content is no http-equiv', () => {
    const b = page(['<meta name="Content-Type" content="text/html; charset=koi8-r">\n', real], RUSSIAN_BODY, pad);
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });
});

describe('body content ends the search (past the first 1024 bytes)', () => {
  // The late decoys say KOI8-R; the Russian text is windows-1251, which detection finds.
  const decoy = '<meta charset="koi8-r">\n';
  const pad = PADDING['inline script'](3000);

  test.each([
    [
      'after body content',
      bytes(
        '<html><head>',
        pad,
        '</head><body><p>Breaking news</p>',
        decoy,
        '<p>',
        encode(RUSSIAN.join(' '), 'windows-1251'),
        '</p>',
      ),
    ],
    [
      'after text in the head',
      bytes(
        '<html><head>',
        pad,
        'Breaking news\n',
        decoy,
        '</head><body><p>',
        encode(RUSSIAN.join(' '), 'windows-1251'),
        '</p>',
      ),
    ],
    [
      'after a start tag that is no head element',
      bytes(
        '<html><head>',
        pad,
        '<div id="consent"></div>\n',
        decoy,
        '</head><body><p>',
        encode(RUSSIAN.join(' '), 'windows-1251'),
        '</p>',
      ),
    ],
  ])('a <meta> %s is ignored', (_, b) => {
    expect(offsetOf(b, decoy)).toBeGreaterThan(1024);
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'detected' });
  });

  test('comments, whitespace, </head> and a <template> are not body content', () => {
    const head = bytes(
      '<html><head>',
      pad,
      '<!-- ad slot -->\n   \n<template><div class="card">x</div></template>\n</head>\n  \n',
    );
    const b = bytes(head, '<meta charset="windows-1251">\n<body><p>', encode(RUSSIAN[0], 'windows-1251'), '</p>');
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });

  test('within the first 1024 bytes a <meta> counts even after body content (the prescan reads them all)', () => {
    const b = bytes(
      '<html><body><p>Breaking news</p><meta charset="windows-1251"><p>',
      encode(RUSSIAN[0], 'windows-1251'),
      '</p>',
    );
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1251', charsetSource: 'meta' });
  });
});

describe('what a declaration means, and what beats it', () => {
  const pad = PADDING.comment(4000);
  const utf8Body = bytes('<p>', Buffer.from('Zażółć gęślą jaźń — “cytat”', 'utf8'), '</p>');

  test.each(['utf-16', 'UTF-16LE', 'utf-16be', 'unicode'])(
    'a UTF-16 label (%s) means UTF-8, late or early',
    (label) => {
      for (const padding of [pad, '']) {
        for (const meta of [
          `<meta charset="${label}">`,
          `<meta http-equiv="content-type" content="text/html; charset=${label}">`,
        ]) {
          const decoded = decodeHtml(page([meta], utf8Body, padding));
          expect(decoded).toMatchObject({ charset: 'UTF-8', charsetSource: 'meta' });
          expect(decoded.text).toContain('Zażółć gęślą jaźń — “cytat”');
        }
      }
    },
  );

  test('x-user-defined means windows-1252 (0x93 is a curly quote, not U+F793)', () => {
    const b = page(['<meta charset="x-user-defined">'], bytes('<p>\x93quoted\x94 caf\xe9</p>'), pad);
    const decoded = decodeHtml(b);
    expect(decoded).toMatchObject({ charset: 'windows-1252', charsetSource: 'meta' });
    expect(decoded.text).toContain('“quoted” café');
  });

  test('a BOM beats a late <meta>, and so does the HTTP charset', () => {
    const b = page(['<meta charset="koi8-r">'], bytes('<p>', Buffer.from(RUSSIAN[0]!, 'utf8'), '</p>'), pad);
    const bom = decodeHtml(bytes(Buffer.from([0xef, 0xbb, 0xbf]), b));
    expect(bom).toMatchObject({ charset: 'UTF-8', charsetSource: 'bom' });
    expect(bom.text).toContain(RUSSIAN[0]);
    const http = decodeHtml(page(['<meta charset="koi8-r">'], RUSSIAN_BODY, pad), 'cp1251');
    expect(http).toMatchObject({ charset: 'windows-1251', charsetSource: 'http' });
    expect(http.text).toContain(RUSSIAN[0]);
    // An HTTP label no one knows is no charset: the <meta> decides.
    expect(decodeHtml(page(['<meta charset="windows-1251">'], RUSSIAN_BODY, pad), 'x-bogus')).toMatchObject({
      charset: 'windows-1251',
      charsetSource: 'meta',
    });
  });

  test.each([
    ['upper case', '<META HTTP-EQUIV="Content-Type" CONTENT="TEXT/HTML; CHARSET=WINDOWS-1250">'],
    ['single quotes, no space', "<meta http-equiv='content-type' content='text/html;charset=windows-1250'>"],
    [
      'content first, spaces around =, quoted label inside',
      `<meta content = 'text/html ; charset = "windows-1250"' http-equiv = Content-Type >`,
    ],
    ['unquoted, with a label alias', '<meta http-equiv=Content-Type content=text/html;charset=cp1250>'],
    [
      'newlines, tabs, self-closing',
      '<meta\n\thttp-equiv="Content-Type"\n\tcontent="text/html;\n charset=windows-1250"\n/>',
    ],
    ['charset attribute with spaces in its value', '<meta charset = " windows-1250 " >'],
    ['slash as a separator', '<meta/charset=windows-1250>'],
    [
      'a bad charset attribute, a good http-equiv (the tree builder falls back to it)',
      '<meta charset="bogus" http-equiv="Content-Type" content="text/html; charset=windows-1250">',
    ],
  ])('odd but valid forms count: %s', (_, meta) => {
    const b = page([meta, '\n'], POLISH_BODY, PADDING['inline script'](4000));
    const decoded = decodeHtml(b);
    expect(decoded).toMatchObject({ charset: 'windows-1250', charsetSource: 'meta' });
    expect(decoded.text).toContain(POLISH[1]);
  });

  test('a content attribute that ends with "charset" (html-encoding-sniffer 4.0.0 threw a TypeError on it) declares nothing', () => {
    const crash = '<meta http-equiv="Content-Type" content="text/html; charset">';
    // Alone, where the old 1024-byte prescan read it: no declaration, and the bytes are UTF-8.
    expect(
      decodeHtml(bytes(`<html><head>${crash}</head><body><p>`, Buffer.from('café', 'utf8'), '</p>')),
    ).toMatchObject({
      charset: 'UTF-8',
      charsetSource: 'default',
    });
    // Followed by a real declaration, past the prescan: that one decides.
    const b = page(
      [crash, '\n', '<meta http-equiv="Content-Type" content="text/html; charset=windows-1250">'],
      POLISH_BODY,
      PADDING['inline script'](2000),
    );
    expect(decodeHtml(b)).toMatchObject({ charset: 'windows-1250', charsetSource: 'meta' });
    // Its neighbours: "charset" then spaces, "charset=" then nothing, an unmatched quote.
    for (const content of ['text/html; charset   ', 'charset=', "text/html; charset='windows-1250"]) {
      const odd = bytes(`<meta http-equiv="Content-Type" content="${content}"><p>`, Buffer.from('café', 'utf8'));
      expect(decodeHtml(odd)).toMatchObject({ charset: 'UTF-8', charsetSource: 'default' });
    }
  });

  test('labels that whatwg-encoding lacks but the Encoding Standard has: ISO-2022-JP', () => {
    // 日本 in ISO-2022-JP: ESC $ B, JIS X 0208 0x467C 0x4B5C, ESC ( B.
    const jis = Buffer.from([0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x1b, 0x28, 0x42]);
    const decoded = decodeHtml(bytes('<meta charset="csISO2022JP"><p>', jis, '</p>'));
    expect(decoded).toMatchObject({ charset: 'ISO-2022-JP', charsetSource: 'meta' });
    expect(decoded.text).toContain('<p>日本</p>');
  });

  test('the XML declaration (the prescan reads it when there is no <meta>); a <meta> still wins over it', () => {
    const decl = '<?xml version="1.0" encoding="windows-1250"?>\n';
    expect(decodeHtml(bytes(decl, '<html><body>', POLISH_BODY))).toMatchObject({
      charset: 'windows-1250',
      charsetSource: 'meta',
    });
    expect(
      decodeHtml(
        bytes(
          '<?xml version="1.0" encoding="iso-8859-2"?>\n<html><head><meta charset="windows-1250"></head><body>',
          POLISH_BODY,
        ),
      ),
    ).toMatchObject({ charset: 'windows-1250' });
  });
});

describe('real legacy pages (test/fixtures/charset): with their declaration, and detected without it', () => {
  const pages = [
    ['traf-auto-presse.de-minisuv.html.gz', 'windows-1252'],
    ['traf-automobilwoche.de-vw-betriebsversammlung.html.gz', 'windows-1252'],
    ['traf-die-tagespost.de-demut.html.gz', 'windows-1252'], // declared iso-8859-1, which is windows-1252
    ['traf-nachrichten.at-alternative-therapien.html.gz', 'windows-1252'],
    ['traf-winfuture.de-nasa.html.gz', 'windows-1252'],
    ['traf-rp.pl-unijne-fundusze.html.gz', 'windows-1250'],
  ];
  /** The page with every <meta> that mentions a charset removed. */
  const undeclare = (b: Buffer) =>
    Buffer.from(b.toString('latin1').replace(/<meta\b[^>]*charset[^>]*>/gi, ''), 'latin1');

  test.each(pages)('%s (%s)', (file, charset) => {
    const original = gunzipSync(readFileSync(join(FIXTURES, 'charset', file)));
    const declared = decodeHtml(original);
    expect(declared).toMatchObject({ charset, charsetSource: 'meta' });
    const stripped = undeclare(original);
    expect(stripped.toString('latin1')).not.toMatch(/<meta\b[^>]*charset/i);
    expect(new TextDecoder('utf-8', { fatal: false }).decode(stripped)).toContain('\ufffd'); // not valid UTF-8: detection runs
    const detected = decodeHtml(stripped);
    expect(detected).toMatchObject({ charset, charsetSource: 'detected' });
    // The same text as the page decoded with its declaration.
    expect(detected.text).toBe(decodeHtml(stripped, charset).text);
  });
});

describe('undeclared legacy text is detected (chardet): natural text in minimal HTML', () => {
  // Each sample: two paragraphs (190 to 590 characters) in <p>s, with a title in the same encoding, no declaration.
  // What chardet cannot tell apart at these lengths is not asserted here, see decode.ts and the report:
  // windows-1250 without any byte in 0x80-0x9F (no ś ź „ ”) reads as ISO-8859-2 (ą becomes š), and
  // windows-1253 without one reads as ISO-8859-7 (Ά becomes ’); short Central European snippets read as windows-1252.
  test.each([
    ['Japanese', 'Shift_JIS', JAPANESE, 'Shift_JIS'],
    ['Japanese', 'EUC-JP', JAPANESE, 'EUC-JP'],
    ['Korean', 'EUC-KR', KOREAN, 'EUC-KR'],
    ['Simplified Chinese', 'GBK', CHINESE, 'gb18030'], // chardet says GB18030, whose decoder is GBK's
    ['Traditional Chinese', 'Big5', TRADITIONAL_CHINESE, 'Big5'],
    ['Russian', 'KOI8-R', RUSSIAN, 'KOI8-R'],
    ['Russian', 'windows-1251', RUSSIAN, 'windows-1251'],
    ['Ukrainian', 'windows-1251', UKRAINIAN, 'windows-1251'],
    ['Greek', 'ISO-8859-7', GREEK, 'ISO-8859-7'],
    ['Polish', 'windows-1250', POLISH, 'windows-1250'],
    ['German', 'windows-1252', GERMAN, 'windows-1252'],
  ])('%s in %s', (_, encoding, texts, charset) => {
    const b = bytes(
      '<!DOCTYPE html>\n<html>\n<head>\n<title>',
      encode(texts[0]!.slice(0, 12), encoding),
      '</title>\n</head>\n<body>\n',
      paragraphs(texts, encoding),
      '</body>\n</html>\n',
    );
    const decoded = decodeHtml(b);
    expect(decoded).toMatchObject({ charset, charsetSource: 'detected' });
    for (const t of texts) expect(decoded.text).toContain(`<p>${t}</p>`);
  });

  test('a plain-text body is detected too', () => {
    expect(decodeText(encode(RUSSIAN.join('\n'), 'koi8-r'))).toMatchObject({
      charset: 'KOI8-R',
      charsetSource: 'detected',
      text: RUSSIAN.join('\n'),
    });
    expect(decodeText(Buffer.from(RUSSIAN.join('\n'), 'utf8'))).toMatchObject({
      charset: 'UTF-8',
      charsetSource: 'default',
    });
  });

  test('too little to go on: windows-1252, by default', () => {
    expect(decodeHtml(bytes('<p>\x93hi\x94 \x80'))).toMatchObject({
      charset: 'windows-1252',
      charsetSource: 'default',
      text: '<p>“hi” €',
    });
    expect(decodeText(Buffer.from([0xe9]))).toMatchObject({
      text: 'é',
      charset: 'windows-1252',
      charsetSource: 'default',
    });
    // Non-ASCII only in markup (a script, an attribute): the text reads the same in any candidate.
    expect(
      decodeHtml(bytes('<html><head><script>var s = "\xe9\xe8";</script></head><body><p>plain</p>')),
    ).toMatchObject({
      charset: 'windows-1252',
      charsetSource: 'default',
    });
  });

  test('valid UTF-8 is never run through detection: default UTF-8', () => {
    const b = bytes('<html><body>', paragraphs(RUSSIAN, 'utf8'), paragraphs(JAPANESE, 'utf8'));
    expect(decodeHtml(b)).toMatchObject({ charset: 'UTF-8', charsetSource: 'default' });
  });
});

describe('properties', () => {
  const MARKUP = [
    '<meta',
    ' charset=',
    'charset',
    '"',
    "'",
    '=',
    ' ',
    '\n',
    '>',
    '<',
    '/',
    'utf-16',
    'koi8-r',
    'windows-1250',
    'x-user-defined',
    '<!--',
    '-->',
    '--!>',
    '-',
    '<!',
    '<?',
    '</',
    '<script>',
    '</script>',
    '<script',
    '<style>',
    '</style ',
    '<title>',
    '</title>',
    '<template>',
    '</template>',
    '<body>',
    '</head>',
    '<p>',
    'text',
    ' http-equiv=content-type',
    ' content="text/html; charset',
    '<?xml version="1.0" encoding="',
    '<plaintext>',
    '\x00',
    '\x93',
    '\xe9',
    '\xef\xbb\xbf',
  ];
  const markupBytes = fc
    .array(
      fc.oneof(
        fc.constantFrom(...MARKUP).map((s) => Buffer.from(s, 'latin1')),
        fc.uint8Array({ maxLength: 12 }).map((u) => Buffer.from(u)),
      ),
      { maxLength: 80 },
    )
    .map((parts) => Buffer.concat(parts));
  const anyLabel = fc.option(
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('utf-8', 'UTF-16', 'x-user-defined', 'iso-2022-kr', 'constructor', 'latin1', 'sjis'),
    ),
    { nil: undefined },
  );

  test('decodeHtml and decodeText never throw, on any bytes and HTTP label, and answer in the vocabulary', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), markupBytes), anyLabel, (b, label) => {
        for (const decoded of [decodeHtml(b, label), decodeText(b, label)]) {
          expect(typeof decoded.text).toBe('string');
          expect(decoded.charset).not.toBe('');
          expect(SOURCES).toContain(decoded.charsetSource);
        }
      }),
      { numRuns: 400 },
    );
  });

  // What a declaration in the first 1024 bytes means, independently of decode.ts: the label
  // table (whatwg-encoding), then UTF-16 as UTF-8 and x-user-defined as windows-1252.
  const LABELS = [
    'utf-8',
    'UTF8',
    ' windows-1250 ',
    'cp1251',
    'latin1',
    'ISO-8859-2',
    'koi8-r',
    'Shift_JIS',
    'sjis',
    'euc-jp',
    'EUC-KR',
    'gb2312',
    'GBK',
    'gb18030',
    'big5',
    'iso-8859-7',
    'greek',
    'utf-16',
    'UTF-16BE',
    'x-user-defined',
    'windows-1254',
    'us-ascii',
    'iso-8859-15',
    'macintosh',
    'ibm866',
    'tis-620',
    'koi8-u',
    'windows-1258',
  ];
  const meaning = (label: string) => {
    const name = labelToName(label)!;
    return name === 'UTF-16LE' || name === 'UTF-16BE' ? 'UTF-8' : name === 'x-user-defined' ? 'windows-1252' : name;
  };
  const declaration = (label: string) =>
    fc.constantFrom(
      `<meta charset="${label}">`,
      `<meta charset='${label}'>`,
      `<meta charset=${label.trim()}>`,
      `<META CHARSET="${label}">`,
      `<meta http-equiv="Content-Type" content="text/html; charset=${label.trim()}">`,
      `<meta content="text/html;charset='${label}'" http-equiv="content-type">`,
      `<meta name="viewport" content="width=device-width" charset="${label}" />`,
    );
  const BEFORE = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '\n',
    '  ',
    '<title>A page &amp; more</title>',
    '<link rel="stylesheet" href="/a.css">',
    '<meta name="viewport" content="width=device-width">',
    '<!-- comment -->',
    '<script>var a = 1 < 2;</script>',
    '<style>p > a { color: red }</style>',
    '<base href="/">',
    '<meta property="og:title" content="x">',
    '</head>',
    '<body>',
    '<p>early text</p>',
  ];
  const AFTER = [
    '<meta charset="koi8-r">',
    '<meta http-equiv="Content-Type" content="text/html; charset=big5">',
    '</head><body>',
    '<p>text</p>',
    '<!--',
    '<script>',
  ];

  test('a declaration in the first 1024 bytes wins, whatever precedes it in markup and whatever follows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...BEFORE), { maxLength: 12 }),
        fc.constantFrom(...LABELS).chain((label) => declaration(label).map((decl) => [label, decl] as const)),
        fc.array(
          fc.oneof(
            fc.constantFrom(...AFTER).map((s) => Buffer.from(s, 'latin1')),
            fc.uint8Array({ maxLength: 200 }).map((u) => Buffer.from(u)),
          ),
          { maxLength: 10 },
        ),
        (before, [label, decl], after) => {
          const b = bytes(before.join(''), decl, ...after);
          expect(before.join('').length + decl.length).toBeLessThanOrEqual(1024);
          expect(decodeHtml(b)).toMatchObject({ charset: meaning(label), charsetSource: 'meta' });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('charsetSource arrives through extractSource (worker, pool, SourceText)', () => {
  const opts = { timeoutMs: 30_000 };
  const url = 'http://127.0.0.1/page';

  test('HTML: a late <meta>, detection, the HTTP charset, UTF-8 by default', async () => {
    const late = await extractSource(
      {
        body: page(['<meta charset="windows-1250">'], POLISH_BODY, PADDING['inline script'](4000)),
        contentType: 'text/html',
        url,
      },
      opts,
    );
    expect(late).toMatchObject({ kind: 'html', charset: 'windows-1250', charsetSource: 'meta' });
    expect(late.views.find((v) => v.name === 'full')!.text).toContain(POLISH[0]);

    const detected = await extractSource(
      { body: bytes('<html><body>', RUSSIAN_BODY), contentType: 'text/html', url },
      opts,
    );
    expect(detected).toMatchObject({ charset: 'windows-1251', charsetSource: 'detected' });
    expect(detected.views.find((v) => v.name === 'full')!.text).toContain(RUSSIAN[1]);

    const http = await extractSource(
      { body: bytes('<html><body>', RUSSIAN_BODY), contentType: 'text/html; charset=windows-1251', url },
      opts,
    );
    expect(http).toMatchObject({ charset: 'windows-1251', charsetSource: 'http' });

    const utf8 = await extractSource(
      { body: bytes('<html><body>', paragraphs(POLISH, 'utf8')), contentType: 'text/html', url },
      opts,
    );
    expect(utf8).toMatchObject({ charset: 'UTF-8', charsetSource: 'default' });
  });

  test('plain text: detection, and the BOM', async () => {
    const koi = await extractSource(
      { body: encode(RUSSIAN.join('\n\n'), 'koi8-r'), contentType: 'text/plain', url },
      opts,
    );
    expect(koi).toMatchObject({ kind: 'text', charset: 'KOI8-R', charsetSource: 'detected' });
    expect(koi.views[0]!.text).toBe(RUSSIAN.join('\n\n'));
    const bom = await extractSource(
      {
        body: bytes(Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('plain words', 'utf8')),
        contentType: 'text/plain',
        url,
      },
      opts,
    );
    expect(bom).toMatchObject({ charset: 'UTF-8', charsetSource: 'bom' });
  });
});
