package dev.routesync.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md leads to a file that exists, and a link's {@code
 * #anchor} to a heading of that file (GitHub's anchors); the README stays short enough to read in
 * minutes. A page moved or renamed without its links fails here rather than on a reader.
 */
class DocsLinksTest {

  /** The README is the entry page: what it is, two commands, install, and a map of docs/. */
  private static final int README_MAX_LINES = 300;

  // [text](target) and [text](target "title"); images too. Not inside inline code (stripped).
  private static final Pattern LINK =
      Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```\\s*$");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*`");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$");

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      for (String target : links(page)) {
        String problem = problem(page, target);
        if (problem != null) {
          broken.add(page + ": " + target + " (" + problem + ")");
        }
      }
    }
    assertThat(broken).as("broken relative links").isEmpty();
  }

  @Test
  void theReadmeIsShort() throws IOException {
    int lines = Files.readAllLines(Path.of("README.md")).size();
    assertThat(lines).as("README.md lines").isLessThanOrEqualTo(README_MAX_LINES);
  }

  @Test
  void anchorsAreGithubs() {
    assertThat(slug("Watch semantics: `resume_from_version`, and why"))
        .isEqualTo("watch-semantics-resume_from_version-and-why");
    assertThat(slug("xDS bootstrap: `routesync bootstrap`"))
        .isEqualTo("xds-bootstrap-routesync-bootstrap");
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(Path.of("README.md"));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  private static List<String> links(Path page) throws IOException {
    String text = Files.readString(page);
    text = FENCE.matcher(text).replaceAll("");
    text = INLINE_CODE.matcher(text).replaceAll("");
    List<String> targets = new ArrayList<>();
    Matcher m = LINK.matcher(text);
    while (m.find()) {
      String target = m.group(1);
      if (!target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) { // http:, https:, mailto:
        targets.add(target);
      }
    }
    return targets;
  }

  /** Null when the link resolves, else what is wrong with it. */
  private static String problem(Path page, String target) throws IOException {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path resolved =
        file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
    if (!Files.exists(resolved)) {
      return "no such file";
    }
    if (anchor == null || anchor.isEmpty()) {
      return null;
    }
    if (Files.isDirectory(resolved) || !resolved.toString().endsWith(".md")) {
      return "an anchor into a file that is not Markdown";
    }
    List<String> slugs = new ArrayList<>();
    Matcher m = HEADING.matcher(FENCE.matcher(Files.readString(resolved)).replaceAll(""));
    while (m.find()) {
      String s = slug(m.group(1));
      long seen =
          slugs.stream().filter(x -> x.equals(s) || x.matches(Pattern.quote(s) + "-\\d+")).count();
      slugs.add(seen == 0 ? s : s + "-" + seen);
    }
    return slugs.contains(anchor) ? null : "no heading #" + anchor;
  }

  /** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
  }
}
