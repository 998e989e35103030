#!/usr/bin/env python3
# One-off maintenance helper (not part of the build): wraps comments and string literals of TypeScript/JavaScript
# files to at most 120 columns, then `npx biome format --write` lays the code out. Usage: wrap-lines.py FILE...
import re
import sys

MAX = 120
LIST_START = re.compile(r'^(?:[-*+] |\d+[.)] |\||```|@\w)')


def split_at(text, width):
    """The last space at or before `width`, else the first space after it; None if no space."""
    cut = text.rfind(' ', 0, width + 1)
    if cut <= 0:
        cut = text.find(' ', width)
    return cut if cut > 0 else None


def wrap_words(words, first_prefix, prefix):
    out, line = [], first_prefix
    for w in words:
        candidate = (line + ' ' + w) if line.strip() and line != first_prefix and line != prefix else line + w
        if len(candidate) > MAX and line not in (first_prefix, prefix):
            out.append(line.rstrip())
            line = prefix + w
        else:
            line = candidate
    out.append(line.rstrip())
    return out


COMMENT = re.compile(r'^(\s*)(//+ ?|\* ?|/\*\* ?)(.*)$')


def wrap_comments(lines):
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = COMMENT.match(line)
        if len(line) <= MAX or not m:
            out.append(line)
            i += 1
            continue
        indent, marker, text = m.groups()
        if marker.startswith('/**'):
            # A one-line doc comment grows into a block.
            body = text[:-2].rstrip() if text.endswith('*/') else text
            out.append(indent + '/**')
            out.extend(wrap_words(body.split(), indent + ' * ', indent + ' * '))
            out.append(indent + ' */' if text.endswith('*/') else '')
            if not text.endswith('*/'):
                out.pop()
            i += 1
            continue
        prefix = indent + marker if marker.endswith(' ') else indent + marker + ' '
        hang = ''
        lm = LIST_START.match(text)
        if lm and text[0] in '-*+' or (lm and text[0].isdigit()):
            hang = ' ' * len(lm.group(0))
        words = text.split()
        j = i + 1
        # The paragraph's following lines join it: same prefix (and hanging indent), not a list item, blank or code.
        while j < len(lines):
            n = lines[j]
            if not n.startswith(prefix + hang) or len(n) <= len(prefix + hang):
                break
            rest = n[len(prefix + hang):]
            if rest.startswith(' ') or LIST_START.match(rest) or rest.startswith('*/'):
                break
            words.extend(rest.split())
            j += 1
        out.extend(wrap_words(words, prefix, prefix + hang))
        i = j
    return out


def literal_end(line, start):
    """Index after the string literal starting at `start` (quote char there), or None."""
    q = line[start]
    i = start + 1
    depth = 0
    while i < len(line):
        c = line[i]
        if c == '\\':
            i += 2
            continue
        if q == '`' and c == '$' and line[i + 1:i + 2] == '{' and depth == 0:
            depth = 1
            i += 2
            continue
        if depth:
            if c == '{':
                depth += 1
            elif c == '}':
                depth -= 1
            elif c in '\'"`':
                end = literal_end(line, i)
                if end is None:
                    return None
                i = end
                continue
            i += 1
            continue
        if c == q:
            return i + 1
        i += 1
    return None


def regex_end(line, start):
    """Index after the regular expression literal starting at `start`, or None."""
    i, in_class = start + 1, False
    while i < len(line):
        c = line[i]
        if c == '\\':
            i += 2
            continue
        if c == '[':
            in_class = True
        elif c == ']':
            in_class = False
        elif c == '/' and not in_class:
            return i + 1
        i += 1
    return None


def split_point(line, start, end, limit):
    """A space inside the literal's text (not in ${...}) at or before `limit`, as far right as possible."""
    q = line[start]
    best, depth, i = None, 0, start + 1
    while i < end - 1:
        c = line[i]
        if c == '\\':
            i += 2
            continue
        if q == '`' and c == '$' and line[i + 1:i + 2] == '{':
            depth += 1
            i += 2
            continue
        if depth and c == '{':
            depth += 1
        elif depth and c == '}':
            depth -= 1
        elif depth == 0 and c == ' ' and i <= limit and i > start + 10:
            best = i
        i += 1
    return best


def code_comment_at(line):
    """Where a trailing // comment starts on a code line (outside strings and regular expressions), or None."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == '/' and line[i + 1:i + 2] == '/':
            return i if line[:i].strip() else None
        if c == '/' and re.search(r'(^|[(,=:\[!&|?{};])\s*$', line[:i]):
            i = regex_end(line, i)
            if i is None:
                return None
            continue
        if c in '\'"`':
            end = literal_end(line, i)
            if end is None:
                return None
            i = end
            continue
        i += 1
    return None


def move_trailing_comment(line):
    """A long code line's trailing comment goes on its own line above it."""
    if len(line) <= MAX or COMMENT.match(line):
        return [line]
    at = code_comment_at(line)
    if at is None:
        return [line]
    indent = re.match(r'\s*', line).group(0)
    text = line[at:].lstrip('/').strip()
    return wrap_words(text.split(), indent + '// ', indent + '// ') + [line[:at].rstrip()]


def wrap_string_line(line):
    """Splits the first long-enough string literal of a code line: 'a b' -> 'a ' + 'b' (parenthesized before . or [)."""
    if COMMENT.match(line) or len(line) <= MAX:
        return [line]
    i = 0
    while i < len(line):
        c = line[i]
        if c == '/' and line[i + 1:i + 2] == '/':
            return [line]
        if c == '/' and re.search(r'(^|[(,=:\[!&|?{};])\s*$', line[:i]):
            i = regex_end(line, i)
            if i is None:
                return [line]
            continue
        if c in '\'"`':
            end = literal_end(line, i)
            if end is None:
                return [line]
            tagged = c == '`' and i > 0 and (line[i - 1].isalnum() or line[i - 1] in '_$.')
            if not tagged and end - i > 40 and end > MAX:
                cut = split_point(line, i, end, MAX - 6)
                if cut is not None:
                    q = c
                    first = line[:cut + 1] + q + ' +'
                    indent = re.match(r'\s*', line).group(0) + '  '
                    second = indent + q + line[cut + 1:end] + line[end:]
                    after = line[end:end + 1]
                    if after in ('.', '['):
                        first = line[:i] + '(' + line[i:cut + 1] + q + ' +'
                        second = indent + q + line[cut + 1:end] + ')' + line[end:]
                    return [first] + wrap_string_line(second)
            i = end
            continue
        i += 1
    return [line]


def main():
    for path in sys.argv[1:]:
        text = open(path).read()
        lines = text.split('\n')
        moved = []
        for line in lines:
            moved.extend(move_trailing_comment(line))
        lines = wrap_comments(moved)
        out = []
        for line in lines:
            out.extend(wrap_string_line(line))
        new = '\n'.join(out)
        if new != text:
            open(path, 'w').write(new)


main()
