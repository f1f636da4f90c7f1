package dev.routesync.lint;

import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;

/**
 * Reads tabs as spaces, for JSON files. JSON allows tabs between tokens and forbids raw tabs inside
 * strings, so this changes no value and no line; but YAML forbids tabs where it sees indentation,
 * and snakeyaml rejects some tab-indented JSON ("found character '\t' that cannot start any
 * token").
 */
final class TabsAsSpaces extends FilterReader {

  TabsAsSpaces(Reader in) {
    super(in);
  }

  @Override
  public int read() throws IOException {
    int c = super.read();
    return c == '\t' ? ' ' : c;
  }

  @Override
  public int read(char[] buffer, int offset, int length) throws IOException {
    int n = super.read(buffer, offset, length);
    for (int i = offset; i < offset + n; i++) {
      if (buffer[i] == '\t') {
        buffer[i] = ' ';
      }
    }
    return n;
  }
}
