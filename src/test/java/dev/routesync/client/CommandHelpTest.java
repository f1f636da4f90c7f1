package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's help reads whole: its summary (the first line of its description, which picocli
 * shows in its parent's command list) is one complete sentence, and no line of any {@code --help}
 * is wider than the usage width.
 */
class CommandHelpTest {

  private static final int WIDTH = 80;

  private static List<CommandLine> everyCommand() {
    List<CommandLine> commands = new ArrayList<>();
    collect(Main.commandLine(), commands);
    return commands;
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    command.getSubcommands().values().stream()
        .distinct() // an alias maps to the same command
        .forEach(sub -> collect(sub, into));
  }

  @Test
  void everySummaryIsOneWholeSentence() {
    SoftAssertions softly = new SoftAssertions();
    for (CommandLine command : everyCommand()) {
      String[] description = command.getCommandSpec().usageMessage().description();
      String name = command.getCommandSpec().qualifiedName();
      softly.assertThat(description).as(name).isNotEmpty();
      if (description.length > 0) {
        softly.assertThat(description[0]).as(name).endsWith(".").doesNotContain(". ");
      }
    }
    softly.assertAll();
  }

  @Test
  void noDescriptionLineBreaksMidSentence() {
    // Picocli prints each element of a description on a line of its own: one that stops
    // mid-sentence is a ragged break in the middle of the help.
    SoftAssertions softly = new SoftAssertions();
    for (CommandLine command : everyCommand()) {
      for (String line : command.getCommandSpec().usageMessage().description()) {
        softly
            .assertThat(line.isBlank() || line.replace("%n", "").matches("(?s).*[.:?]\\s*"))
            .as(command.getCommandSpec().qualifiedName() + ": " + line)
            .isTrue();
      }
    }
    softly.assertAll();
  }

  @Test
  void noHelpLineIsWiderThanTheUsageWidth() {
    SoftAssertions softly = new SoftAssertions();
    for (CommandLine command : everyCommand()) {
      List<String> args =
          new ArrayList<>(List.of(command.getCommandSpec().qualifiedName().split(" ")));
      args.remove(0); // routesync
      args.add("--help");
      Cli.Result help = Cli.run(args.toArray(String[]::new));
      softly.assertThat(help.exitCode()).as(String.join(" ", args)).isZero();
      for (String line : help.out().lines().toList()) {
        softly
            .assertThat(line.length())
            .as(String.join(" ", args) + ": " + line)
            .isLessThanOrEqualTo(WIDTH);
      }
    }
    softly.assertAll();
  }

  @Test
  void theCommandListShowsEachSummaryWhole() {
    String help = Cli.run("--help").out();

    assertThat(help.replaceAll("\\s+", " "))
        .contains(
            Main.commandLine()
                .getSubcommands()
                .get("gate")
                .getCommandSpec()
                .usageMessage()
                .description()[0]);
  }
}
