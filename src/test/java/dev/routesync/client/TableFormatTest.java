package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableFormatTest {

  @Test
  void padsEachColumnToItsWidestCellPlusThreeSpaces() {
    String text =
        new TableFormat("NAME", "READY", "AGE")
            .row("cart", "1", "5m")
            .row("checkout-long", "12", "1h")
            .render();

    assertThat(text)
        .isEqualTo(
            """
            NAME            READY   AGE
            cart            1       5m
            checkout-long   12      1h
            """);
  }

  @Test
  void printsNoneForEmptyAndNullCells() {
    String text = new TableFormat("A", "B", "C").row("", null, "x").render();

    assertThat(text).isEqualTo("A        B        C\n<none>   <none>   x\n");
  }

  @Test
  void neverEndsALineWithSpaces() {
    String text = new TableFormat("LONG-HEADER", "X").row("a", "").row("b", "long-last").render();

    assertThat(text.lines()).allSatisfy(line -> assertThat(line).doesNotEndWith(" "));
  }

  @Test
  void withoutRowsIsEmptyAndRendersTheHeaderOnly() {
    TableFormat table = new TableFormat("A", "B");

    assertThat(table.isEmpty()).isTrue();
    assertThat(table.render()).isEqualTo("A   B\n");
  }

  @Test
  void refusesARowWithTheWrongNumberOfCells() {
    assertThatThrownBy(() -> new TableFormat("A", "B").row("only one"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a row of 1 cells for 2 columns");
  }
}
