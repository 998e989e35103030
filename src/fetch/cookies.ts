// One source's cookies across its redirects and retries (RFC 6265, tough-cookie's jar), the jar made when the first
// Set-Cookie arrives.
import type { CookieJar } from 'tough-cookie';

/**
 * A source's cookie jar, made on demand: most sources set no cookie, and tough-cookie with its public suffix list
 * (tldts) costs a start-up tens of milliseconds before its first request; a jar that holds nothing sends nothing, so
 * until a response sets a cookie there is none to make.
 */
export class SourceCookies {
  #jar: Promise<CookieJar> | undefined;

  /** The Cookie header's value for a request to `url`: empty while no response has set a cookie. */
  async header(url: string): Promise<string> {
    return this.#jar ? (await this.#jar).getCookieString(url) : '';
  }

  /**
   * Keeps the cookies a response from `url` set (its Set-Cookie headers); a malformed one is ignored, as a browser
   * ignores it.
   */
  async keep(setCookies: readonly string[], url: string): Promise<void> {
    if (setCookies.length === 0) return;
    this.#jar ??= import('tough-cookie').then(({ CookieJar }) => new CookieJar());
    const jar = await this.#jar;
    for (const setCookie of setCookies) await jar.setCookie(setCookie, url, { ignoreError: true });
  }
}
