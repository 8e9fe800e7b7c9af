package com.example.keynobi.sample

import android.os.Bundle
import android.util.Log
import android.widget.Button
import android.widget.TextView
import androidx.appcompat.app.AppCompatActivity
import java.time.LocalTime

/** The sample app's only screen: a greeting, a tap counter and a button. */
class MainActivity : AppCompatActivity() {
    private val formatter = GreetingFormatter("Hello from keynobi")
    private var taps = 0

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        setContentView(R.layout.activity_main)
        taps = savedInstanceState?.getInt(KEY_TAPS) ?: 0

        val greeting = findViewById<TextView>(R.id.greeting)
        val counter = findViewById<TextView>(R.id.counter)
        val button = findViewById<Button>(R.id.tap_button)

        greeting.text = formatter.format(getString(R.string.user_name))
        counter.text = getString(R.string.tap_count, taps)
        button.setOnClickListener {
            taps += 1
            counter.text = getString(R.string.tap_count, taps)
            Log.i(TAG, "Tapped $taps times at ${sessionClock()}")
        }
    }

    override fun onSaveInstanceState(outState: Bundle) {
        super.onSaveInstanceState(outState)
        outState.putInt(KEY_TAPS, taps)
    }

    @Deprecated("Deprecated in Java")
    override fun onBackPressed() {
        Log.i(TAG, "Back pressed after $taps taps")
        super.onBackPressed()
    }

    private fun sessionClock(): String = LocalTime.now().toString()

    companion object {
        private const val TAG = "KeynobiSample"
        private const val KEY_TAPS = "taps"
    }
}
