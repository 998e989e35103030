// The real documents of the golden benchmark: files of ../shared/realworld/ copied into golden/sources/ with their names kept.

// Sources: documents from ../shared/realworld/ (see its MANIFEST.json), copied
// into golden/sources/ with their file names kept.

export interface SourceDoc {
  /** path under golden/sources/ (same as under shared/realworld/) */
  file: string;
  /** who published it (for claim sentences and the README) */
  pub: string;
}

export const SOURCES = {
  // English news and science pages (scrapinghub/article-extraction-benchmark, MIT)
  bbc: { file: 'html/c7e39ac49fa1235f5d50f83bf2444248bd3aa4e6df044377916c812dd109ba23.html', pub: 'BBC News' },
  reuters: { file: 'html/57d46c9d751e3fd3ffaf3ede7ac20cebd30eacb5ea78e1a6aa0a72059244e7ca.html', pub: 'Reuters' },
  politifact: { file: 'html/b6906ca016bbfc64c90426e098c75b3e8c84457a77f51f1e7ea6941cb80c2147.html', pub: 'PolitiFact' },
  smithsonian: {
    file: 'html/ea25dd7edff4d27973600f35728f20aed5a3eedcc23257d9c3afc3d3e840c3de.html',
    pub: 'Smithsonian Magazine',
  },
  aljazeera: { file: 'html/42aad16bde9288623543642a9ce1a396be83e2db44aa2ff8cbbfe46e14abd7cc.html', pub: 'Al Jazeera' },
  physorg: { file: 'html/e1c7023ee2148901b086256fdd30a0893d10b0720b510d5ff07a021109347266.html', pub: 'Phys.org' },
  sciencealert: {
    file: 'html/359fee228518d55b921194561e9ca88e428df81940246f8fac7a75398377daea.html',
    pub: 'ScienceAlert',
  },
  quanta: {
    file: 'html/bdb56ac83513635db1d8b9eb46b2da4c0de8da2f1f28f5bf5163df3eb3d3ec06.html',
    pub: 'Quanta Magazine',
  },
  spacereview: {
    file: 'html/c00962aabe7bdd1fca78f5360ea7fa93cd7674863b05157e00827506a7aa58c4.html',
    pub: 'The Space Review',
  },
  givewell: {
    file: 'html/ad9e9e596f21a6812fae27b5d9d622359826c368e471d7d5ff9ac4676eaac9cd.html',
    pub: 'The GiveWell Blog',
  },
  verge: { file: 'html/785affa2c34e6e4844ef080e98e1a1e532eeeb671bdacebfb9e98ad7320ff382.html', pub: 'The Verge' },
  thehill: { file: 'html/6ebac05f637ece8aa57c298a2a5e3a8047f546f855d0f29cc683cea60ce85c85.html', pub: 'The Hill' },
  cityam: { file: 'html/360c732d1fdbfc6895d7096c0c0b8c0d581bb1af80160f4c6a0f1fd9ff85e469.html', pub: 'City A.M.' },
  snopes: { file: 'html/8380689f358c1e3a0f6fca6e11ed13e5304a74060139f7a584347db213950446.html', pub: 'Snopes' },
  panarmenian: {
    file: 'html/d90bda7ed14df19574f4ca8b1ccde5752a78f40058af1393e81cc99adb3e8756.html',
    pub: 'PanARMENIAN.Net',
  },
  macrumors: { file: 'html/232a43fb15abde807427b2a7bf4f772e27b8760554370956d8291df4e8166dbf.html', pub: 'MacRumors' },
  realdeal: {
    file: 'html/bc13ff87b2630ffbebc33bc37b11178b14f03109055e1d17bf644f804b63d98a.html',
    pub: 'The Real Deal',
  },
  express: { file: 'html/ba4dfe2d3e817ff7b8b01172ccc307850fc5469bcdd26c3c48ca046cb88ab7cf.html', pub: 'Daily Express' },
  // UTF-8 pages in other scripts
  korean: {
    file: 'html/0ec95c7261d122f304728e90c983450ef1ce1e0b423546835c397d50aaf0d0f2.html',
    pub: 'Entermedia (Korean, no charset declared)',
  },
  russian: {
    file: 'html/ff0f958ade714ebfaf5c0b42b1c0152a62063f4e6f72141406ccefc4a2677f21.html',
    pub: 'vse-diety.com (Russian, no charset declared)',
  },
  japanese: {
    file: 'html/85439e26c41c75901820d01a13e8cea7836abb58635ea3986f71a163ab0311d3.html',
    pub: 'Lighthouse IP (Japanese)',
  },
  // legacy encodings declared only in <meta> (adbar/trafilatura tests/eval, Apache-2.0)
  automobilwoche: {
    file: 'html/traf-automobilwoche.de-vw-betriebsversammlung.html',
    pub: 'Automobilwoche (windows-1252)',
  },
  autopresse: { file: 'html/traf-auto-presse.de-minisuv.html', pub: 'auto-presse.de (windows-1252)' },
  tagespost: { file: 'html/traf-die-tagespost.de-demut.html', pub: 'Die Tagespost (iso-8859-1)' },
  nachrichten: { file: 'html/traf-nachrichten.at-alternative-therapien.html', pub: 'OÖNachrichten (iso-8859-1)' },
  winfuture: { file: 'html/traf-winfuture.de-nasa.html', pub: 'WinFuture (iso-8859-1)' },
  rzeczpospolita: {
    file: 'html/traf-rp.pl-unijne-fundusze.html',
    pub: 'Rzeczpospolita (windows-1250, declared after byte 1024)',
  },
  // PDFs (mozilla/pdf.js, allenai/papermage, jsvine/pdfplumber, pdfminer.six, py-pdf/sample-files)
  s2orc: { file: 'pdf/2020.acl-main.447.pdf', pub: 'ACL 2020 (S2ORC paper)' },
  tracemonkey: { file: 'pdf/tracemonkey.pdf', pub: 'PLDI 2009 (TraceMonkey paper)' },
  idp: { file: 'pdf/issue-1061-colour-space-stack.pdf', pub: 'IEEE TIFS preprint (Individual Differential Privacy)' },
  fedreg: { file: 'pdf/federal-register-2020-17221.pdf', pub: 'Federal Register (FAA proposed AD, 737 MAX)' },
  scotus: { file: 'pdf/scotus-transcript-p1.pdf', pub: 'Supreme Court transcript (Knowles v. Mirzayance)' },
  sainteadele: { file: 'pdf/2023-06-20-PV.pdf', pub: 'Sainte-Adèle demolition committee minutes' },
  googledoc: { file: 'pdf/google-doc-document.pdf', pub: 'Google Docs export (Zen of Python)' },
  nics: { file: 'pdf/nics-background-checks-2015-11.pdf', pub: 'FBI NICS statistics' },
  cba: { file: 'pdf/pr-138-example.pdf', pub: 'Commonwealth Bank rate sheet (AES, empty user password)' },
  asw: {
    file: 'pdf/issue-00352-asw-oct96-p41.pdf',
    pub: 'Flight Safety Foundation, AeroSafety World (RC4, empty user password)',
  },
  jo: { file: 'pdf/jo.pdf', pub: 'Miyazawa Kenji poem, vertical Japanese text' },
  scanRu: { file: 'pdf/issue7229.pdf', pub: 'scanned vehicle inspection card (no text layer)' },
  scanZh: { file: 'pdf/issue-203-decimalize.pdf', pub: 'scanned administrative decision (no text layer)' },
  locked: { file: 'pdf/libreoffice-writer-password.pdf', pub: 'LibreOffice document with a user password' },
} satisfies Record<string, SourceDoc>;

export type SrcKey = keyof typeof SOURCES;
