package com.example.keynobi.groovy;

import android.app.Activity;
import android.os.Bundle;
import android.util.Log;
import android.widget.Button;
import android.widget.TextView;
import java.time.LocalTime;

/** The Groovy-DSL sample's only screen: a greeting and a button that counts taps. */
public class MainActivity extends Activity {
    private static final String TAG = "KeynobiGroovy";
    private int taps = 0;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        setContentView(R.layout.activity_main);
        TextView greeting = findViewById(R.id.greeting);
        TextView counter = findViewById(R.id.counter);
        Button button = findViewById(R.id.tap_button);

        greeting.setText("Hello from keynobi (Groovy DSL)");
        counter.setText(getString(R.string.tap_count, taps));
        button.setOnClickListener(v -> {
            taps += 1;
            counter.setText(getString(R.string.tap_count, taps));
            Log.i(TAG, "Tapped " + taps + " times at " + sessionClock());
        });
    }

    private String sessionClock() {
        return LocalTime.now().toString();
    }
}
