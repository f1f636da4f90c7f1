package dev.routesync.kube.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/** The Event fields the API constrains: the name, the note's length, MicroTime. */
final class EventFields {

  /** The API's limit on {@code note}, in bytes. */
  static final int NOTE_LIMIT_BYTES = 1024;

  /** A DNS subdomain's limit, which an Event's name must be. */
  static final int NAME_LIMIT = 253;

  private static final int HASH_CHARS = 16;
  private static final String CUT = "...";
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(ZoneOffset.UTC);

  private EventFields() {}

  /**
   * {@code <regarding>.<16 hex digits of SHA-256(dedupKey)>}: the same key always names the same
   * Event (so an agent restarted within the Event's lifetime finds it again: a 409 on create), two
   * keys about one pod name two Events, and the name says which pod it is about. The regarding name
   * is made DNS-subdomain safe and cut so the whole is at most 253 characters.
   */
  static String name(String regardingName, String dedupKey) {
    String hash = hash(dedupKey);
    String base = subdomain(regardingName);
    int room = NAME_LIMIT - 1 - hash.length();
    if (base.length() > room) {
      base = trimEnds(base.substring(0, room));
    }
    return base.isEmpty() ? hash : base + "." + hash;
  }

  /**
   * {@code note} cut to at most 1,024 UTF-8 bytes, ending in "..." when cut, never mid-character.
   */
  static String note(String note) {
    byte[] bytes = note.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= NOTE_LIMIT_BYTES) {
      return note;
    }
    int budget = NOTE_LIMIT_BYTES - CUT.length();
    StringBuilder kept = new StringBuilder();
    int used = 0;
    for (int i = 0; i < note.length(); ) {
      int codePoint = note.codePointAt(i);
      int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
      if (used + size > budget) {
        break;
      }
      kept.appendCodePoint(codePoint);
      used += size;
      i += Character.charCount(codePoint);
    }
    return kept.append(CUT).toString();
  }

  /** RFC 3339 with microseconds, UTC: the API's MicroTime. */
  static String microTime(Instant instant) {
    return MICRO_TIME.format(instant.truncatedTo(ChronoUnit.MICROS));
  }

  private static String hash(String key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, HASH_CHARS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * Lower case, only [a-z0-9-.], each dot-separated label non-empty and alphanumeric at both ends.
   */
  private static String subdomain(String name) {
    String lower = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    List<String> labels = new ArrayList<>();
    for (String label : lower.split("\\.")) {
      String trimmed = trimEnds(label);
      if (!trimmed.isEmpty()) {
        labels.add(trimmed);
      }
    }
    return String.join(".", labels);
  }

  private static String trimEnds(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && !alphanumeric(s.charAt(start))) {
      start++;
    }
    while (end > start && !alphanumeric(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(start, end);
  }

  private static boolean alphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
