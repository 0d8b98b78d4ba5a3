package dev.tern;

/** A tern failure: the model could not be loaded, the translator not created, or a call was wrong as a whole. */
public class TernException extends Exception {
  public TernException(String message) {
    super(message);
  }
}
