package dev.routesync.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shell commands that README.md, CONTRIBUTING.md and docs/*.md show, as a reader would type
 * them. The convention (CONTRIBUTING.md states it for authors):
 *
 * <ul>
 *   <li>In a {@code sh}, {@code bash} or {@code shell} block every line is a command, unless some
 *       line starts with {@code "$ "}: then only those lines are commands and the lines after each
 *       are its output.
 *   <li>In a {@code console} block and in an unlabelled block only lines starting with {@code "$ "}
 *       are commands (unlabelled blocks are mostly diagrams, logs and program output).
 *   <li>Blocks in any other language ({@code json}, {@code yaml}, {@code text}, ...) hold no
 *       commands.
 *   <li>A {@code #} comment (a whole line, or after a command) is dropped; a line ending in {@code
 *       \} goes on in the next; a here-document ({@code <<'END'} ... {@code END}) is the command's
 *       input, not commands.
 * </ul>
 */
final class DocCommands {

  /** One command line of a page, with the output lines the page shows after it. */
  record DocCommand(Path page, int line, String text, List<String> output) {
    String where() {
      return page + ":" + line;
    }
  }

  private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([A-Za-z0-9_+-]*).*$");
  private static final Pattern HEREDOC = Pattern.compile("<<-?\\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)");

  private DocCommands() {}

  /** The pages whose commands are checked: README.md, CONTRIBUTING.md and docs/*.md. */
  static List<Path> pages(Path root) throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    pages.add(root.resolve("CONTRIBUTING.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  static List<DocCommand> of(Path page) throws IOException {
    return of(page, Files.readAllLines(page));
  }

  static List<DocCommand> of(Path page, List<String> lines) {
    List<DocCommand> commands = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher fence = FENCE.matcher(lines.get(i));
      if (!fence.matches()) {
        continue;
      }
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
        end++;
      }
      commands.addAll(block(page, fence.group(1), lines, i + 1, end));
      i = end;
    }
    return commands;
  }

  private static List<DocCommand> block(
      Path page, String language, List<String> lines, int from, int to) {
    boolean shell = List.of("sh", "bash", "shell").contains(language);
    boolean prompted = lines.subList(from, to).stream().anyMatch(l -> l.startsWith("$ "));
    if (!shell && !(prompted && List.of("", "console").contains(language))) {
      return List.of();
    }
    List<DocCommand> commands = new ArrayList<>();
    int i = from;
    while (i < to) {
      String line = lines.get(i);
      if (prompted && !line.startsWith("$ ")) {
        i++; // output of the command before (collected with it)
        continue;
      }
      int start = i;
      StringBuilder text = new StringBuilder();
      String part = prompted ? line.substring(2) : line;
      while (true) {
        String bare = withoutComment(part).stripTrailing();
        if (bare.endsWith("\\") && i + 1 < to) {
          text.append(bare, 0, bare.length() - 1).append(' ');
          part = lines.get(++i);
        } else {
          text.append(bare);
          break;
        }
      }
      i++;
      Matcher heredoc = HEREDOC.matcher(text);
      if (heredoc.find()) {
        while (i < to && !lines.get(i).strip().equals(heredoc.group(1))) {
          i++;
        }
        i++;
      }
      List<String> output = new ArrayList<>();
      if (prompted) {
        while (i < to && !lines.get(i).startsWith("$ ")) {
          output.add(lines.get(i++));
        }
      }
      String command = text.toString().strip().replaceAll("\\s+", " ");
      if (!command.isEmpty()) {
        commands.add(new DocCommand(page, start + 1, command, output));
      }
    }
    return commands;
  }

  /** The line without a {@code #} comment: a {@code #} at the start or after a blank, unquoted. */
  static String withoutComment(String line) {
    boolean single = false;
    boolean dbl = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'' && !dbl) {
        single = !single;
      } else if (c == '"' && !single) {
        dbl = !dbl;
      } else if (c == '#'
          && !single
          && !dbl
          && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return line.substring(0, i);
      }
    }
    return line;
  }

  /**
   * The simple commands of a command line: split at {@code &&}, {@code ||}, {@code |}, {@code ;}
   * and {@code &}, subshell parentheses dropped, {@code eval "$(inner)"} as {@code inner}; each as
   * its words, quotes removed.
   */
  static List<List<String>> simpleCommands(String line) {
    List<List<String>> commands = new ArrayList<>();
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'' || c == '"') {
        int close = line.indexOf(c, i + 1);
        if (close < 0) {
          close = line.length();
        }
        word.append(line, i + 1, close);
        inWord = true;
        i = close;
      } else if (c == '&' || c == '|' || c == ';' || c == '(' || c == ')') {
        if (c == '&' && i > 0 && line.charAt(i - 1) == '>') {
          word.append(c); // 2>&1
          continue;
        }
        inWord = flush(words, word, inWord);
        if (!words.isEmpty()) {
          commands.add(words);
          words = new ArrayList<>();
        }
      } else if (Character.isWhitespace(c)) {
        inWord = flush(words, word, inWord);
      } else {
        word.append(c);
        inWord = true;
      }
    }
    flush(words, word, inWord);
    if (!words.isEmpty()) {
      commands.add(words);
    }
    List<List<String>> expanded = new ArrayList<>();
    for (List<String> command : commands) {
      if (command.size() == 2 && command.get(0).equals("eval") && command.get(1).startsWith("$(")) {
        String inner = command.get(1);
        expanded.addAll(simpleCommands(inner.substring(2, inner.length() - 1)));
      } else {
        expanded.add(command);
      }
    }
    return expanded;
  }

  private static boolean flush(List<String> words, StringBuilder word, boolean inWord) {
    if (inWord) {
      words.add(word.toString());
      word.setLength(0);
    }
    return false;
  }
}
